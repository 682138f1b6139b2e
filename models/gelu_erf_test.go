package models

import (
	"math"
	"testing"
)

// The exact GELU's vector kernels (gelu_erf_amd64.s) against its Go code (geluErf, with
// erfExp32) and against math.Erf, over a dense grid with the branch edges of erfExp32
// (|u/√2| = 1 and 4), expf's underflow (u²/2 = 87), tails out to ±MaxFloat32, ±Inf and NaN.

// geluErfGrid is u on [−20, 20] in steps of 1e-3 and the edges named above with their
// neighbours (grid adds ±e and the float32s next to them).
func geluErfGrid() []float32 {
	return grid(-20, 20, 1e-3, 0, 1e-40, 1e-30, 1e-7, math.Sqrt2, 4*math.Sqrt2,
		float32(math.Sqrt(174)), 30, 1e3, 1e30, math.MaxFloat32, float32(math.Inf(1)))
}

// runGeluErf runs fwd (geluErfFwd or geluErfFwd512) on us with no bias and returns GELU(u)
// and GELU′(u), checking that it writes nothing past the end.
func runGeluErf(t *testing.T, fwd func(y, b, d *float32, n int, gain float32), us []float32) (y, d []float32) {
	t.Helper()
	n := len(us)
	y = append(append([]float32(nil), us...), 42)
	d = make([]float32, n+1)
	d[n] = 42
	b := make([]float32, n)
	fwd(&y[0], &b[0], &d[0], n, 1)
	if y[n] != 42 || d[n] != 42 {
		t.Fatalf("n=%d: written past the end", n)
	}
	return y[:n], d[:n]
}

// sameOrNaN reports whether a and b have the same bits or are both NaN.
func sameOrNaN(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

func TestGeluErfVec(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2/FMA")
	}
	us := append(geluErfGrid(), float32(math.NaN()))
	y, d := runGeluErf(t, geluErfFwd, us)
	var worstY, worstD, worstRefY, worstRefD float64
	for i, u := range us {
		gy, gd := geluErf(u)
		if math.IsNaN(float64(u)) || math.IsInf(float64(u), 0) {
			// The Go code's specials: GELU(+Inf) = +Inf, GELU(−Inf) = NaN (−Inf·0), GELU′ NaN
			// (±Inf·0) and NaN for NaN; the kernel must give the same.
			if !sameOrNaN(y[i], gy) || !sameOrNaN(d[i], gd) {
				t.Fatalf("GELU(%g) = %g, GELU′ %g; Go %g, %g", u, y[i], d[i], gy, gd)
			}
			continue
		}
		// Against the Go code: the same polynomials with fused products. Φ(u) then differs
		// by at most two float32 ulps at 1, 2.4e-7 absolute (the polynomials' last roundings,
		// and the cancellation in ½(1 + erf) for negative u; 1.2e-7 measured), so GELU = u·Φ
		// by 2.4e-7·|u| or 2 ulps of the result, and GELU′ = Φ + u·φ by 2.4e-7·(1 + |u|) or
		// 2 ulps.
		au := math.Abs(float64(u))
		if e := math.Abs(float64(y[i]) - float64(gy)); e > 2.4e-7*au && ulpDiff(y[i], gy) > 2 {
			t.Fatalf("GELU(%g) = %g, Go %g (%.3g, %.1f ulp)", u, y[i], gy, e, ulpDiff(y[i], gy))
		} else if au > 0 {
			worstY = math.Max(worstY, e/au)
		}
		if e := math.Abs(float64(d[i]) - float64(gd)); e > 2.4e-7*(1+au) && ulpDiff(d[i], gd) > 2 {
			t.Fatalf("GELU′(%g) = %g, Go %g (%.3g)", u, d[i], gd, e)
		} else {
			worstD = math.Max(worstD, e/(1+au))
		}
		// Against math.Erf in float64: erf32's 2.5e-7 relative error bound with margin, and
		// the float32 roundings of u/√2 and of the results.
		f := float64(u)
		p := 0.5 * (1 + math.Erf(f/math.Sqrt2))
		ry, rd := f*p, p+f*math.Exp(-0.5*f*f)/math.Sqrt(2*math.Pi)
		if math.IsInf(f, 0) || math.Abs(f) > 1e30 {
			rd = p // f·φ(f) underflows to 0 long before: the float32 code's e is 0
		}
		if e := math.Abs(float64(y[i]) - ry); e > 3e-7*(1+math.Abs(ry)) {
			t.Fatalf("GELU(%g) = %g, math.Erf's %g", u, y[i], ry)
		} else {
			worstRefY = math.Max(worstRefY, e/(1+math.Abs(ry)))
		}
		if e := math.Abs(float64(d[i]) - rd); e > 5e-7*(1+math.Abs(rd)) {
			t.Fatalf("GELU′(%g) = %g, math.Erf's %g", u, d[i], rd)
		} else {
			worstRefD = math.Max(worstRefD, e/(1+math.Abs(rd)))
		}
	}
	t.Logf("from the Go code: GELU %.3g·|u|, GELU′ %.3g·(1+|u|); from math.Erf: %.3g, %.3g ·(1+|ref|)",
		worstY, worstD, worstRefY, worstRefD)
	checkGeluErfTails(t, geluErfFwd)
}

// checkGeluErfTails runs fwd with a bias at every length 1..40 (the tails) and checks that
// y + gain·b goes in as u (bit for bit the results of u passed without a bias, as the products
// gain·b are exact here) and that nothing past n is written.
func checkGeluErfTails(t *testing.T, fwd func(y, b, d *float32, n int, gain float32)) {
	t.Helper()
	for n := 1; n <= 40; n++ {
		y := make([]float32, n+1)
		b := make([]float32, n)
		us := make([]float32, n)
		for i := range b {
			y[i] = float32(i)*0.37 - 3
			b[i] = float32(i%5)*0.25 - 0.5
			us[i] = y[i] + 0.75*b[i]
		}
		y[n] = 42
		d := make([]float32, n+1)
		d[n] = 42
		fwd(&y[0], &b[0], &d[0], n, 0.75)
		wy, wd := runGeluErf(t, fwd, us)
		if y[n] != 42 || d[n] != 42 {
			t.Fatalf("n=%d: written past the end", n)
		}
		for i := range n {
			if y[i] != wy[i] || d[i] != wd[i] {
				t.Fatalf("n=%d: GELU(%g) with the bias = %g, %g; without %g, %g", n, us[i], y[i], d[i], wy[i], wd[i])
			}
		}
	}
}

// TestGeluErf512 checks that the AVX-512 kernel gives the eight-lane kernel's results bit for
// bit on the grid (with NaN), and its tails.
func TestGeluErf512(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512")
	}
	us := append(geluErfGrid(), float32(math.NaN()))
	for _, n := range []int{len(us), 1, 15, 16, 17, 33} {
		y8, d8 := runGeluErf(t, geluErfFwd, us[len(us)-n:])
		y16, d16 := runGeluErf(t, geluErfFwd512, us[len(us)-n:])
		for i := range n {
			if !sameOrNaN(y8[i], y16[i]) || !sameOrNaN(d8[i], d16[i]) {
				t.Fatalf("n=%d: GELU(%g) = %g, GELU′ %g (AVX-512); %g, %g (AVX2)", n, us[len(us)-n+i], y16[i], d16[i], y8[i], d8[i])
			}
		}
	}
	checkGeluErfTails(t, geluErfFwd512)
}
