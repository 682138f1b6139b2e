package models

import (
	"math"
	"testing"
)

// The vector tanh/exp/GELU kernels (vmath_amd64.s) against the scalar tanhf/expf of num.go
// over dense grids, including the clamp edges and every tail length. The polynomials are the
// same; the vector code fuses multiply-adds, so results may differ by a few float32 ulps.

// ulpDiff is |a−b| in units of float32 ulps at b (0 when both are equal, incl. infinities).
func ulpDiff(a, b float32) float64 {
	if a == b {
		return 0
	}
	return math.Abs(float64(a)-float64(b)) / float64(math.Nextafter32(float32(math.Abs(float64(b))), float32(math.Inf(1)))-float32(math.Abs(float64(b))))
}

// grid returns lo..hi in steps of step, plus the given extra points and their neighbours.
func grid(lo, hi, step float64, extra ...float32) []float32 {
	var xs []float32
	for x := lo; x <= hi; x += step {
		xs = append(xs, float32(x))
	}
	for _, e := range extra {
		for _, v := range []float32{e, -e} {
			xs = append(xs, v, math.Nextafter32(v, float32(math.Inf(1))), math.Nextafter32(v, float32(math.Inf(-1))))
		}
	}
	return xs
}

func TestTanhVec(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2/FMA")
	}
	xs := grid(-12, 12, 1e-3, 0, 1e-30, 1e-7, 7.90531110763549805, 20, float32(math.Inf(1)))
	got := make([]float32, len(xs))
	tanhVec(&got[0], &xs[0], len(xs))
	worstUlp, worstAbs := 0.0, 0.0
	for i, x := range xs {
		s := tanhf(x)
		// Against the scalar version: 4 ulps, or 2e-8 absolute where tanh crosses zero, or
		// near saturation (|tanh| > 0.5, where the rational function cancels) the scalar
		// version's own error bound 4e-7.
		abs := 2e-8
		if math.Abs(float64(s)) > 0.5 {
			abs = 4e-7
		}
		if u := ulpDiff(got[i], s); u > 4 && math.Abs(float64(got[i]-s)) > abs {
			t.Fatalf("tanhVec(%g) = %g, scalar %g (%.1f ulp)", x, got[i], s, u)
		}
		worstUlp = math.Max(worstUlp, ulpDiff(got[i], s))
		// Against math.Tanh: the scalar version's documented 4e-7 absolute error, with margin.
		e := math.Abs(float64(got[i]) - math.Tanh(float64(x)))
		if e > 6e-7 {
			t.Fatalf("tanhVec(%g) = %g, math.Tanh %g", x, got[i], math.Tanh(float64(x)))
		}
		worstAbs = math.Max(worstAbs, e)
	}
	t.Logf("worst %.1f ulp from tanhf, %.2g from math.Tanh", worstUlp, worstAbs)
	checkTails(t, func(dst, src []float32) { tanhVec(&dst[0], &src[0], len(src)) }, tanhf)
}

// checkTails runs a vector kernel on every length 1..40 and checks it writes exactly n
// results.
func checkTails(t *testing.T, vec func(dst, src []float32), scalar func(float32) float32) {
	t.Helper()
	for n := 1; n <= 40; n++ {
		src := make([]float32, n+8)
		dst := make([]float32, n+8)
		for i := range src {
			src[i] = float32(i)*0.37 - 3
			dst[i] = 42
		}
		vec(dst[:n], src[:n])
		for i := range dst {
			if i >= n {
				if dst[i] != 42 {
					t.Fatalf("n=%d: element %d written", n, i)
				}
				continue
			}
			if s := scalar(src[i]); ulpDiff(dst[i], s) > 4 && math.Abs(float64(dst[i]-s)) > 4e-7 {
				t.Fatalf("n=%d: element %d = %g, scalar %g", n, i, dst[i], s)
			}
		}
	}
}

func TestExpSum(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2/FMA")
	}
	xs := grid(-100, 100, 1e-3, 0, 1e-30, 87, 88.3762626647949, 88.5, float32(math.Inf(1)))
	got := append([]float32(nil), xs...)
	sum := expSum(&got[0], len(got), 0)
	worst, want := 0.0, 0.0
	for i, x := range xs {
		s := expf(x)
		want += float64(s)
		if math.IsInf(float64(s), 1) || s == 0 {
			if got[i] != s {
				t.Fatalf("expSum: exp(%g) = %g, scalar %g", x, got[i], s)
			}
			continue
		}
		u := ulpDiff(got[i], s)
		if u > 2 {
			t.Fatalf("expSum: exp(%g) = %g, scalar %g (%.1f ulp)", x, got[i], s, u)
		}
		if e := math.Abs(float64(got[i])/math.Exp(float64(x)) - 1); e > 4e-7 {
			t.Fatalf("expSum: exp(%g) = %g, math.Exp %g", x, got[i], math.Exp(float64(x)))
		}
		worst = math.Max(worst, u)
	}
	if !math.IsInf(float64(sum), 1) || !math.IsInf(want, 1) {
		t.Fatalf("sum %g, want +Inf", sum)
	}
	t.Logf("worst %.1f ulp from expf", worst)

	// The shift, the sum and every tail length, on softmax-like inputs.
	for n := 1; n <= 40; n++ {
		x := make([]float32, n+8)
		for i := range x {
			x[i] = float32(i%7)*0.9 - 2
		}
		orig := append([]float32(nil), x...)
		s := expSum(&x[0], n, 1.5)
		var ws float64
		for i := range x {
			if i >= n {
				if x[i] != orig[i] {
					t.Fatalf("n=%d: element %d written", n, i)
				}
				continue
			}
			e := expf(orig[i] - 1.5)
			ws += float64(e)
			if ulpDiff(x[i], e) > 2 {
				t.Fatalf("n=%d: element %d = %g, want %g", n, i, x[i], e)
			}
		}
		if math.Abs(float64(s)/ws-1) > 1e-6 {
			t.Fatalf("n=%d: sum %g, want %g", n, s, ws)
		}
	}
}

func TestGeluVec(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2/FMA")
	}
	us := grid(-12, 12, 1e-3, 0, 1e-20, 5, 7)
	for _, n := range []int{len(us), 1, 7, 8, 9, 15, 17} {
		y := append([]float32(nil), us[:n]...)
		b := make([]float32, n)
		for i := range b {
			b[i] = float32(i%5)*0.25 - 0.5
		}
		pre := make([]float32, n+1)
		geluFwd(&y[0], &b[0], &pre[0], n, 0.75)
		if pre[n] != 0 {
			t.Fatalf("n=%d: written past the end", n)
		}
		gr := make([]float32, n)
		for i := range gr {
			gr[i] = float32(i%3) - 0.7
		}
		dp := make([]float32, n+1)
		geluBwd(&dp[0], &gr[0], &pre[0], n)
		for i := 0; i < n; i++ {
			u := us[i] + 0.75*b[i]
			if pre[i] != u {
				t.Fatalf("pre[%d] = %g, want %g", i, pre[i], u)
			}
			tt := tanhf(float32(geluC) * (u + 0.044715*u*u*u))
			wy := 0.5 * u * (1 + tt)
			wd := gr[i] * (0.5*(1+tt) + 0.5*u*(1-tt*tt)*float32(geluC)*(1+3*0.044715*u*u))
			// The vector and scalar tanh may differ by up to 4e-7 near saturation (above);
			// through 1−t² that moves the derivative by about 1e-6·|u·√(2/π)·(1+3·0.044715u²)·g|.
			if e := math.Abs(float64(y[i] - wy)); e > 2e-6*math.Max(1, math.Abs(float64(u))) {
				t.Fatalf("GELU(%g) = %g, scalar %g", u, y[i], wy)
			}
			sens := math.Abs(float64(u * gr[i] * float32(geluC) * (1 + 3*0.044715*u*u)))
			if e := math.Abs(float64(dp[i] - wd)); e > 2e-6*math.Max(1, math.Abs(float64(u*gr[i])))+1e-6*sens {
				t.Fatalf("GELU′(%g)·%g = %g, scalar %g", u, gr[i], dp[i], wd)
			}
		}
		if dp[n] != 0 {
			t.Fatalf("n=%d: gradient written past the end", n)
		}
	}
}

// TestGelu512 checks that the AVX-512 GELU kernels give the eight-lane kernels' results
// bit for bit on a dense grid (clamp edges, ±Inf, tiny values), for every length 1..40
// (tails by mask registers), and write nothing past n.
func TestGelu512(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512")
	}
	us := grid(-12, 12, 1e-3, 0, 1e-20, 5, 7, 7.90531110763549805, 30, float32(math.Inf(1)))
	lengths := []int{len(us)}
	for n := 1; n <= 40; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		b := make([]float32, n)
		gr := make([]float32, n)
		for i := range b {
			b[i] = float32(i%5)*0.25 - 0.5
			gr[i] = float32(i%3) - 0.7
		}
		var y, pre, dp [2][]float32
		for v := range 2 {
			y[v] = append(append([]float32(nil), us[:n]...), 42)
			pre[v] = make([]float32, n+1)
			dp[v] = make([]float32, n+1)
		}
		geluFwd(&y[0][0], &b[0], &pre[0][0], n, 0.75)
		geluBwd(&dp[0][0], &gr[0], &pre[0][0], n)
		geluFwd512(&y[1][0], &b[0], &pre[1][0], n, 0.75)
		geluBwd512(&dp[1][0], &gr[0], &pre[1][0], n)
		for i := 0; i <= n; i++ {
			for _, c := range []struct {
				name string
				a, z []float32
			}{{"GELU", y[0], y[1]}, {"pre", pre[0], pre[1]}, {"GELU′", dp[0], dp[1]}} {
				if math.Float32bits(c.a[i]) != math.Float32bits(c.z[i]) {
					t.Fatalf("n=%d: %s[%d] = %g (AVX-512), %g (AVX2)", n, c.name, i, c.z[i], c.a[i])
				}
			}
		}
	}
}

// TestSoftmaxRow checks the vector softmax and its backward pass against the scalar loops
// for every length 1..40 (tails), on rows with large and very negative entries.
func TestSoftmaxRow(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2/FMA")
	}
	for n := 1; n <= 40; n++ {
		x := make([]float32, n+8)
		for i := range x {
			x[i] = float32((i*7)%11)*1.3 - 6
		}
		x[n/2] = -200 // underflows to 0
		if n > 3 {
			x[n-1] = 30
		}
		want := append([]float32(nil), x...)
		var ws float32
		mx := want[0]
		for _, v := range want[1:n] {
			mx = max(mx, v)
		}
		for i := 0; i < n; i++ {
			want[i] = expf(want[i] - mx)
			ws += want[i]
		}
		for i := 0; i < n; i++ {
			want[i] *= 1 / ws
		}
		got := append([]float32(nil), x...)
		s := softmaxRow(&got[0], n)
		if math.Abs(float64(s/ws-1)) > 1e-6 {
			t.Fatalf("n=%d: sum %g, want %g", n, s, ws)
		}
		for i := range got {
			if i >= n {
				if got[i] != x[i] {
					t.Fatalf("n=%d: element %d written", n, i)
				}
				continue
			}
			if e := math.Abs(float64(got[i] - want[i])); e > 1e-7 && ulpDiff(got[i], want[i]) > 4 {
				t.Fatalf("n=%d: p[%d] = %g, want %g", n, i, got[i], want[i])
			}
		}

		dp := make([]float32, n+8)
		for i := range dp {
			dp[i] = float32((i*5)%7) - 3
		}
		wd := append([]float32(nil), dp...)
		var dot float32
		for i := 0; i < n; i++ {
			dot += want[i] * wd[i]
		}
		for i := 0; i < n; i++ {
			wd[i] = want[i] * (wd[i] - dot)
		}
		gd := append([]float32(nil), dp...)
		softmaxBack(&want[0], &gd[0], n)
		for i := range gd {
			if i >= n {
				if gd[i] != dp[i] {
					t.Fatalf("n=%d: gradient element %d written", n, i)
				}
				continue
			}
			if e := math.Abs(float64(gd[i] - wd[i])); e > 1e-6*(1+math.Abs(float64(dp[i]))) {
				t.Fatalf("n=%d: dx[%d] = %g, want %g", n, i, gd[i], wd[i])
			}
		}
	}
}

// TestRMSVec checks the RMSNorm row kernels against the scalar loops of rmsKernel for every
// length 1..40 (tails), and that nothing past n is written.
func TestRMSVec(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2/FMA")
	}
	for n := 1; n <= 40; n++ {
		mk := func(a, b float32) []float32 {
			s := make([]float32, n+8)
			for i := range s {
				s[i] = float32((i*7)%13)*a - b
			}
			return s
		}
		x, dy, g, acc := mk(0.3, 1.7), mk(-0.2, 0.9), mk(0.1, -0.5), mk(0.05, 0.1)
		const inv, c = 0.83, 0.21
		var ss, dot float32
		wacc, wdx, wy := append([]float32(nil), acc...), make([]float32, n+8), make([]float32, n+8)
		for i := 0; i < n; i++ {
			ss += x[i] * x[i]
			dot += g[i] * dy[i] * x[i]
			wacc[i] += dy[i] * x[i] * inv
			wdx[i] = inv*g[i]*dy[i] - c*x[i]
			wy[i] = x[i] * inv * g[i]
		}
		close := func(what string, got, want float32, scale float64) {
			if math.Abs(float64(got-want)) > 1e-6*scale {
				t.Fatalf("n=%d: %s = %g, want %g", n, what, got, want)
			}
		}
		close("Σx²", sumSq(&x[0], n), ss, float64(ss)+1)
		gotDot := rmsBackDot(&x[0], &dy[0], &g[0], &acc[0], n, inv)
		close("Σg·dy·x", gotDot, dot, float64(n))
		y, dx := make([]float32, n+8), make([]float32, n+8)
		scaleMul(&y[0], &x[0], &g[0], n, inv)
		rmsBackDx(&dx[0], &x[0], &dy[0], &g[0], n, inv, c)
		for i := range y {
			if i >= n {
				if y[i] != 0 || dx[i] != 0 || acc[i] != wacc[i] {
					t.Fatalf("n=%d: element %d written", n, i)
				}
				continue
			}
			close("y", y[i], wy[i], 1)
			close("dx", dx[i], wdx[i], 1)
			close("acc", acc[i], wacc[i], 1)
		}
	}
}

// TestAddVec checks addVec for every length 1..40 and that nothing past n is written.
func TestAddVec(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2/FMA")
	}
	for n := 1; n <= 40; n++ {
		dst, src := make([]float32, n+8), make([]float32, n+8)
		for i := range dst {
			dst[i], src[i] = float32(i)*0.5, float32(i*i)-3
		}
		addVec(&dst[0], &src[0], n)
		for i := range dst {
			want := float32(i) * 0.5
			if i < n {
				want += float32(i*i) - 3
			}
			if dst[i] != want {
				t.Fatalf("n=%d: dst[%d] = %g, want %g", n, i, dst[i], want)
			}
		}
	}
}
