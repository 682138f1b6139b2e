package models

import (
	"math"
	"testing"
)

// TestPow2f: pow2MagicBits are pow2Magic's bits; pow2f is 2^y to 3e-7 relative on the
// scan's and the sigmoid's range, y ∈ [−124, 0] (measured 2.21e-7: the polynomial's 1.2e-7
// and float32 rounding); σ from it (negAbsLog2, sigmoidOf) to 3e-7.
func TestPow2f(t *testing.T) {
	if math.Float32bits(pow2Magic) != pow2MagicBits {
		t.Fatalf("pow2MagicBits %#x, want %#x", pow2MagicBits, math.Float32bits(pow2Magic))
	}
	worst := 0.0
	for i := 0; i <= 124_000; i++ {
		y := float32(-float64(i) / 1000)
		want := math.Exp2(float64(y))
		worst = max(worst, math.Abs(float64(pow2f(y))-want)/want)
	}
	if worst > 3e-7 {
		t.Errorf("pow2f relative error %.3g on [−124, 0], want ≤ 3e-7", worst)
	}
	for _, v := range []float32{-90, -3, -0.5, 0, 0.25, 4, 90} {
		e := pow2f(negAbsLog2(math.Float32bits(v)))
		want := 1 / (1 + math.Exp(-float64(v)))
		if got := sigmoidOf(float32(math.Float32bits(v)>>31), e); math.Abs(float64(got)-want) > 3e-7 {
			t.Errorf("σ(%g) = %g, want %g ± 3e-7", v, got, want)
		}
	}
}
