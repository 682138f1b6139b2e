package accel

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestParityHarness: the kernel-by-kernel check runs every kernel on the host device, passes
// against itself, and catches a kernel that computes something else at every shape and grid.
func TestParityHarness(t *testing.T) {
	if errs := Parity(NewHost(nil), NewHost(nil), 1, 1e-6); len(errs) > 0 {
		t.Fatalf("host against host: %v", errs)
	}
	bad := NewHost(nil)
	orig := bad.kernels["wt_scale"]
	bad.kernels["wt_scale"] = func(args []any) error {
		args[2] = args[2].(float32) * 1.001
		return orig(args)
	}
	errs := Parity(NewHost(nil), bad, 1, 1e-6)
	want := len(ParityShapes()) * len(parityGrids(parityCase{}))
	if len(errs) != want {
		t.Fatalf("a wrong scale kernel gave %d errors, want %d: %v", len(errs), want, errs)
	}
	for _, err := range errs {
		if !strings.HasPrefix(err.Error(), "scale at ") {
			t.Errorf("error not about the scale kernel: %v", err)
		}
	}
}

// TestHostKernelsNoNaN: every parity case's outputs are written (no NaN left from the fill)
// except where a kernel leaves elements alone by design.
func TestHostKernelsNoNaN(t *testing.T) {
	h := NewHost(nil)
	rng := rand.New(rand.NewPCG(2, 2))
	for _, s := range ParityShapes() {
		for _, c := range parityCases(s) {
			init := make([][]float32, len(c.bufs))
			for i, bf := range c.bufs {
				init[i] = bf.initial(rng)
			}
			out, err := c.run(h, init, c.grid)
			if err != nil {
				t.Fatalf("%s at %s: %v", c.name, s.Name, err)
			}
			for i, b := range out {
				for j, x := range b {
					if math.IsNaN(float64(x)) {
						t.Fatalf("%s at %s: buffer %d[%d] still NaN", c.name, s.Name, i, j)
					}
				}
			}
		}
	}
}
