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
	const magic = 12582912
	d, s := as32(dst), as32(x)
	s = s[:len(d)]
	if haveAVX2 && len(d) >= 8 { // the same arithmetic eight lanes at a time, the tail below
		n8 := len(d) &^ 7
		sigmoidVec(&d[0], &s[0], n8)
		d, s = d[n8:], s[n8:]
	}
	for j, v := range s {
		// e = exp(−|v|) ∈ (0, 1]; σ(v) = 1/(1+e) for v ≥ 0, e/(1+e) below, selected without
		// a branch (the sign of v is unpredictable).
		b := math.Float32bits(v)
		neg := float32(b >> 31)
		a := math.Float32frombits(b | 0x80000000)
		if a < -86 {
			a = -86
		}
		y := float32(a * 1.44269504088896341)
		t := y + magic
		r := y - (t - magic)
		// Each product is rounded before its sum (float32(…): no fused multiply-add), as the
		// vector loop of scan_amd64.s computes it: the two agree bit for bit.
		p := float32(1.5403530393e-04)
		p = float32(p*r) + 1.3333558146e-03
		p = float32(p*r) + 9.6181291076e-03
		p = float32(p*r) + 5.5504108665e-02
		p = float32(p*r) + 2.4022650696e-01
		p = float32(p*r) + 6.9314718056e-01
		p = float32(p*r) + 1
		e := math.Float32frombits(math.Float32bits(p) + (math.Float32bits(t)-0x4b400000)<<23)
		d[j] = (1 + float32(neg*(e-1))) / (1 + e)
	}
}

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
	const magic = 12582912
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
		a := math.Float32frombits(b | 0x80000000) // −|v|
		if a < -86 {
			a = -86
		}
		y := float32(a * 1.44269504088896341)
		t := y + magic
		r := y - (t - magic)
		p := float32(1.5403530393e-04)
		p = float32(p*r) + 1.3333558146e-03
		p = float32(p*r) + 9.6181291076e-03
		p = float32(p*r) + 5.5504108665e-02
		p = float32(p*r) + 2.4022650696e-01
		p = float32(p*r) + 6.9314718056e-01
		p = float32(p*r) + 1
		e := math.Float32frombits(math.Float32bits(p) + (math.Float32bits(t)-0x4b400000)<<23)
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
		dg[j] = (1 + float32(neg*(e-1))) / (1 + e)
	}
}

func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
