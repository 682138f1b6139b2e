package fpu

import (
	"math"
	"testing"
)

// tiny is a float32 whose square is subnormal; a variable, so the product is computed at
// run time on the thread under test.
var tiny float32 = 1e-20

// square is not inlined, so the multiply happens where it is called.
//
//go:noinline
func square(x float32) float32 { return x * x }

func TestFlushSubnormals(t *testing.T) {
	want := float32(1e-40) // 1e-20², subnormal
	if got := square(tiny); math.Abs(float64(got-want)) > 1e-45 || got == 0 {
		t.Fatalf("before: 1e-20² = %g, want the subnormal %g", got, want)
	}
	m := FlushSubnormals()
	flushed := square(tiny)
	inner := FlushSubnormals() // nests
	nested := square(tiny)
	Restore(inner)
	still := square(tiny)
	cur := Current()
	Restore(m)
	after := square(tiny)
	if !supported {
		t.Skip("no flush-to-zero mode on this architecture")
	}
	for _, c := range []struct {
		name string
		got  float32
		want float32
	}{
		{"flushed", flushed, 0},
		{"nested", nested, 0},
		{"after the inner Restore", still, 0},
		{"after Restore", after, want},
	} {
		if math.Abs(float64(c.got-c.want)) > 1e-45 {
			t.Errorf("%s: 1e-20² = %g, want %g", c.name, c.got, c.want)
		}
	}
	if !cur.Flushing() || m.Flushing() || Current().Flushing() {
		t.Errorf("Flushing: inside %v, the mode before %v, after %v; want true, false, false", cur.Flushing(), m.Flushing(), Current().Flushing())
	}
}
