package cuda

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"windtunnel/backends/accel"
)

// openResidentOrSkip opens GPU 0 for the resident step; without one the test is skipped,
// or fails when WINDTUNNEL_REQUIRE_GPU=1 (scripts/gpu-check.sh sets it).
func openResidentOrSkip(t *testing.T) *Accel {
	t.Helper()
	a, err := OpenResident(0)
	if err != nil {
		if os.Getenv("WINDTUNNEL_REQUIRE_GPU") == "1" {
			t.Fatalf("WINDTUNNEL_REQUIRE_GPU=1 and no GPU for the resident step: %v", err)
		}
		t.Skipf("no GPU for the resident step: %v", err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	t.Logf("%s (NVRTC %s)", a.Name(), a.Info().NVRTCLib)
	return a
}

// TestResidentKernelsGPU: every kernel compiled by NVRTC computes what its host version
// computes, at odd sizes with outputs pre-filled with NaN.
func TestResidentKernelsGPU(t *testing.T) {
	a := openResidentOrSkip(t)
	for _, err := range accel.Parity(accel.NewHost(nil), a, 11, accel.ParityTol) {
		t.Error(err)
	}
}

// TestResidentGemmGPU: cuBLAS on device pointers gives the host's row-major products for
// every transpose pair, odd sizes, leading dimensions wider than the rows and β ≠ 0.
func TestResidentGemmGPU(t *testing.T) {
	a := openResidentOrSkip(t)
	h := accel.NewHost(nil)
	rng := rand.New(rand.NewPCG(3, 3))
	const m, n, k, pad = 37, 19, 53, 3
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			ar, ac, br, bc := accel.OperandShapes(tA, tB, m, n, k)
			lda, ldb, ldc := ac+pad, bc+pad, n+pad
			in := [][]float32{randn(rng, ar*lda), randn(rng, br*ldb), randn(rng, m*ldc)}
			run := func(d accel.Device) []float32 {
				out := make([]float32, m*ldc)
				err := d.Do(func() error {
					var p [3]accel.Ptr
					for i, x := range in {
						var err error
						if p[i], err = d.Alloc(len(x)); err != nil {
							return err
						}
						defer d.Free(p[i])
						if err := d.Write(p[i], x); err != nil {
							return err
						}
					}
					if err := d.Gemm(tA, tB, m, n, k, 0.5, p[0], lda, p[1], ldb, 0.25, p[2], ldc); err != nil {
						return err
					}
					return d.Read(out, p[2])
				})
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			want, got := run(h), run(a)
			for i := range want {
				if math.Abs(float64(got[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
					t.Fatalf("tA=%v tB=%v: C[%d] = %v, host %v", tA, tB, i, got[i], want[i])
				}
			}
		}
	}
}

func randn(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}
