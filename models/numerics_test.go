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

// TestErf32: erf32 is math.Erf to 2.5e-7 relative on a dense grid of [−6, 6] (every
// 1/100000; measured 1.76e-7), odd, and ±1 in the tails; the exact GELU's gradient
// (geluErf's second result) is its value's central difference in float64 to 1e-8, and the
// float32 form is the float64 one to 3e-7 (value, relative to 1 + |value|) and 5e-7 (gradient).
func TestErf32(t *testing.T) {
	worst, at := 0.0, 0.0
	for i := -600_000; i <= 600_000; i++ {
		x := float32(float64(i) / 100_000)
		want := math.Erf(float64(x))
		got := float64(erf32(x))
		if want == 0 {
			if got != 0 {
				t.Fatalf("erf32(0) = %g", got)
			}
			continue
		}
		if e := math.Abs(got-want) / math.Abs(want); e > worst {
			worst, at = e, float64(x)
		}
		if erf32(-x) != -erf32(x) {
			t.Fatalf("erf32 is not odd at %g", x)
		}
	}
	t.Logf("erf32: worst relative error %.3g at %g", worst, at)
	if worst > 2.5e-7 {
		t.Errorf("erf32 relative error %.3g at %g, want ≤ 2.5e-7", worst, at)
	}
	for _, x := range []float32{4, 10, 1e30} {
		if erf32(x) != 1 || erf32(-x) != -1 {
			t.Errorf("erf32(±%g) = %g, %g, want ±1", x, erf32(x), erf32(-x))
		}
	}
	const h = 1e-5
	for _, u := range []float64{-5, -2.5, -1, -0.3, 0, 0.4, 1.7, 3, 6} {
		f := func(v float64) float64 { y, _ := geluErf(v); return y }
		num := (f(u+h) - f(u-h)) / (2 * h)
		if _, got := geluErf(u); math.Abs(got-num) > 1e-8 {
			t.Errorf("exact GELU′(%g) = %.10g, central difference %.10g", u, got, num)
		}
	}
	for i := -80_000; i <= 80_000; i++ {
		u := float64(i) / 10_000
		y, dy := geluErf(u)
		y32, dy32 := geluErf(float32(u))
		if math.Abs(float64(y32)-y) > 3e-7*(1+math.Abs(y)) || math.Abs(float64(dy32)-dy) > 5e-7 {
			t.Fatalf("float32 exact GELU(%g) = %g, %g; float64 %g, %g", u, y32, dy32, y, dy)
		}
	}
}
