package models

import "math"

// The models' numeric formulas and constants, each written once here: the norm ε, GELU's
// constants, value and gradient (the tanh form and the exact one, with its float32 erf),
// RMSNorm's factor, and the float32 exp of the sigmoid and
// the selective scan (pow2f; Cephes' exp, expf, is num.go's, with tanhf). Their deliberate
// twins, which cannot call these: the assembly kernels (vmath_amd64.s: GELU, tanh and exp;
// gelu_erf_amd64.s: the exact GELU with erfExp32's polynomials; scan_amd64.s: pow2f); backends/accel's CUDA kernels
// (kernels.cu) and their Go twin (host_kernels.go: GELU, RMSNorm, with the ε passed in
// from here), a leaf below models; models/llm's kernels, which take their ε from each
// checkpoint's config.json and the exact or tanh GELU its hidden_act names; the PyTorch
// references (scripts/). The J-lens pass (jlens_pass.go) is a second forward and reverse
// pass of the transformer that uses these, not the training kernels (jlens.go says why).
const (
	// normEps is every norm's ε (RMSNorm and LayerNorm): x/√(mean(x²) + ε).
	normEps = 1e-5
	// geluC and geluA are the tanh form of GELU's: ½u(1 + tanh(geluC·(u + geluA·u³))).
	geluC = 0.7978845608028654 // sqrt(2/π)
	geluA = 0.044715
)

// rmsInv is RMSNorm's factor 1/√(ss/d + eps) of a row of d values whose squares sum to ss
// (rmsKernel's, and the J-lens pass's rmsInvT).
func rmsInv[T Float](ss T, d int, eps T) T { return 1 / sqrtT(ss/T(d)+eps) }

// geluTanh is tanh(geluC·(u + geluA·u³)), the part of GELU its gradient reuses.
func geluTanh[T Float](u T) T { return tanhT(T(geluC) * (u + T(geluA)*u*u*u)) }

// geluOf is GELU(u) from t = geluTanh(u).
func geluOf[T Float](u, t T) T { return 0.5 * u * (1 + t) }

// geluGradOf is d GELU / du from t = geluTanh(u).
func geluGradOf[T Float](u, t T) T {
	return 0.5*(1+t) + 0.5*u*(1-t*t)*T(geluC)*(1+T(3*geluA)*u*u)
}

// The exact GELU (PyTorch's F.gelu default): u·Φ(u), Φ(u) = ½(1 + erf(u/√2)), the form the
// authors' model uses (arch.GELUErf). Its gradient is Φ(u) + u·φ(u), φ(u) = e^(−u²/2)/√(2π).
const (
	invSqrt2   = 0.70710678118654752440 // 1/√2
	invSqrt2Pi = 0.39894228040143267794 // 1/√(2π)
)

// erfA0…erfA6 are erf(x)/x as a polynomial in x² on |x| < 1, and erfB0…erfB9 erfc(x)·e^(x²)
// as a polynomial in 1/x on [1, 4] (least-squares fits to math.Erf, made for this file; erf32
// holds them to 2.5e-7 relative, TestErf32). gelu_erf_amd64.s holds them rounded to float32
// (its vme table): change both together (TestGeluErfVec compares them).
const (
	erfA0, erfA1, erfA2, erfA3 = 1.1283791660932752, -0.37612628720442154, 0.1128362185964443, -0.02685550035934094
	erfA4, erfA5, erfA6        = 0.0051918141777309405, -0.0008043185047435315, 7.970350955731097e-05
	erfB0, erfB1, erfB2, erfB3 = 0.00011188464728259015, 0.5619492929088077, 0.019000639459371013, -0.36853813912479133
	erfB4, erfB5, erfB6, erfB7 = 0.20867367856613503, 0.2798948311525593, -0.5883287584414715, 0.47787838381862247
	erfB8, erfB9               = -0.19705806695998596, 0.0339998572022141
)

// erf32 is erf(x) in float32 arithmetic, to 2.5e-7 relative (TestErf32).
func erf32(x float32) float32 {
	r, _ := erfExp32(x)
	return r
}

// erfExp32 is erf(x) and e^(−x²) in float32 arithmetic: erf is x·P(x²) below 1,
// 1 − e^(−x²)·Q(1/x) on [1, 4) and ±1 beyond (erfc(4) is below float32's half ulp of 1);
// the exp (expf) is computed once for both.
func erfExp32(x float32) (erf, e float32) {
	a := x
	if a < 0 {
		a = -a
	}
	e = expf(-a * a)
	if a < 1 {
		z := a * a
		p := float32(erfA6)
		p = p*z + erfA5
		p = p*z + erfA4
		p = p*z + erfA3
		p = p*z + erfA2
		p = p*z + erfA1
		p = p*z + erfA0
		return x * p, e
	}
	r := float32(1)
	if a < 4 {
		s := 1 / a
		q := float32(erfB9)
		q = q*s + erfB8
		q = q*s + erfB7
		q = q*s + erfB6
		q = q*s + erfB5
		q = q*s + erfB4
		q = q*s + erfB3
		q = q*s + erfB2
		q = q*s + erfB1
		q = q*s + erfB0
		r = 1 - q*e
	}
	if x < 0 {
		return -r, e
	}
	return r, e
}

// geluErf is the exact GELU(u) = u·Φ(u) and its gradient Φ(u) + u·φ(u), sharing one exp
// (float32: erfExp32; float64: math.Erf and math.Exp). The kernels keep the gradient from
// the forward pass, so the backward pass is a product.
func geluErf[T Float](u T) (y, dy T) {
	if !is32[T]() {
		f := float64(u)
		p := 0.5 * (1 + math.Erf(f*invSqrt2))
		return T(f * p), T(p + f*invSqrt2Pi*math.Exp(-0.5*f*f))
	}
	f := float32(u)
	r, e := erfExp32(f * invSqrt2)
	p := 0.5 * (1 + r)
	return T(f * p), T(p + f*invSqrt2Pi*e)
}

// log2e is log2(e): e^x = 2^(x·log2e).
const log2e = 1.44269504088896341

// pow2Magic is 1.5·2²³: adding it to a float32 of magnitude below 2²² rounds it to an
// integer n, and the sum's bits less pow2MagicBits (pow2Magic's) are n.
const (
	pow2Magic     = 12582912
	pow2MagicBits = 0x4b400000
)

// pow2C1…pow2C6 are the degree-6 polynomial of 2^r on r ∈ [−½, ½] (relative error ≤ 1.2e-7).
const (
	pow2C6 = 1.5403530393e-04
	pow2C5 = 1.3333558146e-03
	pow2C4 = 9.6181291076e-03
	pow2C3 = 5.5504108665e-02
	pow2C2 = 2.4022650696e-01
	pow2C1 = 6.9314718056e-01
)

// pow2f is 2^y for a float32 y in [−126, 0]: y is split into the nearest integer n (by
// pow2Magic) and r ∈ [−½, ½], 2^r is the polynomial (each product rounded before its sum)
// and n goes into the exponent. It is the exp of sigmoidArr, softplusSigmoidArr (with
// negAbsLog2) and scanStep32 (whose products, once left unrounded, a GOAMD64=v3 or arm64
// build would fuse; amd64's default build rounds them as here). Its deliberate twins, in assembly: scan_amd64.s's EXPNEG
// (the same roundings: bit for bit), scanFwdChan and scan512_amd64.s's lane kernels (with fused
// multiply-adds). Cephes' exp
// (expf, and vmath_amd64.s's EXP, its twin) is another: a wider range, for the kernels.
func pow2f(y float32) float32 {
	t := y + pow2Magic
	r := y - (t - pow2Magic)
	// One expression, for the inliner: each product rounded (float32), then its sum.
	p := float32((float32((float32((float32((float32((float32(pow2C6*r)+pow2C5)*r)+pow2C4)*r)+pow2C3)*r)+pow2C2)*r)+pow2C1)*r) + 1
	return math.Float32frombits(math.Float32bits(p) + (math.Float32bits(t)-pow2MagicBits)<<23)
}

// negAbsLog2 is −|v|·log2(e), clamped at −86·log2(e), for the float32 v whose bits are b:
// e^−|v| = pow2f(negAbsLog2(b)) ∈ (0, 1].
func negAbsLog2(b uint32) float32 {
	return float32(max(math.Float32frombits(b|0x80000000), -86) * log2e)
}
