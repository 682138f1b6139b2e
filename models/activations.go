package models

import (
	"math"
)

// sigmoidArr sets dst[j] = 1/(1+e^−x[j]).
func sigmoidArr[T Float](dst, x []T) {
	if !is32[T]() {
		for j, v := range x[:len(dst)] {
			dst[j] = T(sigmoid64(float64(v)))
		}
		return
	}
	d, s := as32(dst), as32(x)
	s = s[:len(d)]
	if haveAVX2 && len(d) >= 8 { // the same arithmetic eight lanes at a time, the tail below
		n8 := len(d) &^ 7
		sigmoidVec(&d[0], &s[0], n8)
		d, s = d[n8:], s[n8:]
	}
	for j, v := range s {
		// e = exp(−|v|) ∈ (0, 1]; σ(v) = 1/(1+e) for v ≥ 0, e/(1+e) below, selected without
		// a branch (the sign of v is unpredictable). Each product is rounded before its sum
		// (pow2f), as the vector loop of scan_amd64.s computes it: the two agree bit for bit.
		b := math.Float32bits(v)
		neg := float32(b >> 31)
		e := pow2f(negAbsLog2(b))
		d[j] = sigmoidOf(neg, e)
	}
}

// tanhArr sets dst[j] = tanh(x[j]) (float32: tanhVec eight lanes at a time where the CPU has
// AVX2, tanhf for the rest; the two agree within 4 ulp or tanhf's 4e-7: TestTanhVec).
func tanhArr[T Float](dst, x []T) {
	if !is32[T]() {
		for j, v := range x[:len(dst)] {
			dst[j] = T(math.Tanh(float64(v)))
		}
		return
	}
	d, s := as32(dst), as32(x)
	s = s[:len(d)]
	if haveAVX2 && len(d) >= 8 {
		n8 := len(d) &^ 7
		tanhVec(&d[0], &s[0], n8)
		d, s = d[n8:], s[n8:]
	}
	for j, v := range s {
		d[j] = tanhf(v)
	}
}

// sigmoidOf is σ(v) from e = e^−|v| and neg = 1 for a negative v, 0 otherwise:
// (1 + neg·(e−1)) / (1+e), without a branch (scan_amd64.s's SIGMOID is its twin).
func sigmoidOf(neg, e float32) float32 { return (1 + float32(neg*(e-1))) / (1 + e) }

// softplusSigmoidArr sets sp[j] = log(1+e^x[j]) and sg[j] = 1/(1+e^−x[j]), its derivative.
func softplusSigmoidArr[T Float](sp, sg, x []T) {
	if !is32[T]() {
		for j, v := range x[:len(sp)] {
			f := float64(v)
			sp[j] = T(math.Max(f, 0) + math.Log1p(math.Exp(-math.Abs(f))))
			sg[j] = T(sigmoid64(f))
		}
		return
	}
	dp, dg, s := as32(sp), as32(sg), as32(x)
	s, dg = s[:len(dp)], dg[:len(dp)]
	if haveAVX2 && len(dp) >= 8 { // the same arithmetic eight lanes at a time, the tail below
		n8 := len(dp) &^ 7
		softplusSigmoidVec(&dp[0], &dg[0], &s[0], n8)
		dp, dg, s = dp[n8:], dg[n8:], s[n8:]
	}
	for j, v := range s {
		b := math.Float32bits(v)
		neg := float32(b >> 31)
		e := pow2f(negAbsLog2(b))
		// log(1+e) = 2·atanh(q), q = e/(2+e) ∈ (0, 1/3]: the odd series to q¹³ (error < 1e-8).
		q := e / (2 + e)
		w := q * q
		l := float32(1.0 / 13)
		l = float32(l*w) + 1.0/11
		l = float32(l*w) + 1.0/9
		l = float32(l*w) + 1.0/7
		l = float32(l*w) + 1.0/5
		l = float32(l*w) + 1.0/3
		l = float32(l*w) + 1
		l = float32(l * (2 * q))
		// softplus(v) = max(v, 0) + log(1+e), σ(v) as in sigmoidArr, both without branches.
		dp[j] = l + math.Float32frombits(b&((b>>31)-1))
		dg[j] = sigmoidOf(neg, e)
	}
}

func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// geluForward is geluFwd on the widest vector kernel this CPU runs (needs haveAVX2).
func geluForward(y, b, pre *float32, n int, gain float32) {
	if haveAVX512 {
		geluFwd512(y, b, pre, n, gain)
		return
	}
	geluFwd(y, b, pre, n, gain)
}

// geluBackward is geluBwd on the widest vector kernel this CPU runs (needs haveAVX2).
func geluBackward(dp, gout, pre *float32, n int) {
	if haveAVX512 {
		geluBwd512(dp, gout, pre, n)
		return
	}
	geluBwd(dp, gout, pre, n)
}

// siluBackArr sets dst[j] = g[j]·s[j]·(1 + x[j]·(1 − s[j])), the gradient through SiLU
// x·σ(x) with s = σ(x) (dst may be g); bit for bit the same on the AVX2 loop and in Go.
func siluBackArr[T Float](dst, g, x, s []T) {
	g, x, s = g[:len(dst)], x[:len(dst)], s[:len(dst)]
	if is32[T]() && haveAVX2 && len(dst) > 0 {
		siluBackVec(p32(dst), p32(g), p32(x), p32(s), len(dst))
		return
	}
	for j, sv := range s {
		dst[j] = g[j] * sv * (1 + x[j]*(1-sv))
	}
}

// geluErfForward is geluErfFwd on the widest vector kernel this CPU runs (needs haveAVX2).
func geluErfForward(y, b, d *float32, n int, gain float32) {
	if haveAVX512 {
		geluErfFwd512(y, b, d, n, gain)
		return
	}
	geluErfFwd(y, b, d, n, gain)
}

// actBackward sets dp[j] = g[j]·GELU′(u_j) for lo ≤ j < hi, u the last forward pass's
// pre-activations: a product with the saved GELU′ (the exact form), or from u and the saved
// tanh (the tanh form's scalar path), or on the vector kernel that recomputes the tanh.
func (k *linKernel[T]) actBackward(dp, g []T, lo, hi int) {
	if k.act == actGELUErf && is32[T]() && haveAVX2 && hi > lo {
		// The upstream gradient times the saved GELU′ (·1 is exact: the scalar product).
		scaleMul(&as32(dp)[lo], &as32(g)[lo], &as32(k.th)[lo], hi-lo, 1)
		return
	}
	if k.vec {
		geluBackward(&as32(dp)[lo], &as32(g)[lo], &as32(k.pre)[lo], hi-lo)
		return
	}
	if k.act == actGELUErf {
		for j := lo; j < hi; j++ {
			dp[j] = g[j] * k.th[j]
		}
		return
	}
	for j := lo; j < hi; j++ {
		u, t := k.pre[j], k.th[j]
		dp[j] = g[j] * geluGradOf(u, t)
	}
}
