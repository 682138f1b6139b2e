package models

import (
	"math"
	"unsafe"

	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/gemm"
)

// Float is the element type a model computes in: float32 for training, float64 for
// gradient checks.
type Float interface{ ~float32 | ~float64 }

func is32[T Float]() bool { var z T; return unsafe.Sizeof(z) == 4 }

func as32[T Float](s []T) []float32 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&s[0])), len(s))
}

func as64[T Float](s []T) []float64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&s[0])), len(s))
}

func tr(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// mm computes C = alpha·op(A)·op(B) + beta·C on row-major matrices through the backend.
func mm[T Float](be gemm.Backend, tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if is32[T]() {
		be.Sgemm(tr(tA), tr(tB), m, n, k, float32(alpha), as32(a), lda, as32(b), ldb, float32(beta), as32(c), ldc)
		return
	}
	be.Dgemm(tr(tA), tr(tB), m, n, k, float64(alpha), as64(a), lda, as64(b), ldb, float64(beta), as64(c), ldc)
}

// tanhf is a float32 rational approximation of tanh (absolute error about 4e-7 on the
// clamped range), a fraction of the cost of math.Tanh.
func tanhf(x float32) float32 {
	const clamp = 7.90531110763549805
	if x > clamp {
		x = clamp
	} else if x < -clamp {
		x = -clamp
	}
	x2 := x * x
	p := float32(-2.76076847742355e-16)
	p = p*x2 + 2.00018790482477e-13
	p = p*x2 - 8.60467152213735e-11
	p = p*x2 + 5.12229709037114e-08
	p = p*x2 + 1.48572235717979e-05
	p = p*x2 + 6.37261928875436e-04
	p = p*x2 + 4.89352455891786e-03
	p *= x
	q := float32(1.19825839466702e-06)
	q = q*x2 + 1.18534705686654e-04
	q = q*x2 + 2.26843463243900e-03
	q = q*x2 + 4.89352518554385e-03
	return p / q
}

func tanhT[T Float](x T) T {
	if is32[T]() {
		return T(tanhf(float32(x)))
	}
	return T(math.Tanh(float64(x)))
}

// expf is a float32 exp accurate to about 2 ulp (Cephes' range reduction and polynomial).
func expf(x float32) float32 {
	if x > 88.3762626647949 {
		return float32(math.Inf(1))
	}
	if x < -87 {
		return 0
	}
	fx := x*log2e + 0.5
	ni := int32(fx) // floor without math.Floor's software rounding (x is within ±88 here)
	if float32(ni) > fx {
		ni--
	}
	n := float32(ni)
	x -= n * 0.693359375
	x -= n * -2.12194440e-4
	z := x * x
	y := float32(1.9875691500e-4)
	y = y*x + 1.3981999507e-3
	y = y*x + 8.3334519073e-3
	y = y*x + 4.1665795894e-2
	y = y*x + 1.6666665459e-1
	y = y*x + 5.0000001201e-1
	y = y*z + x + 1
	return math.Float32frombits(math.Float32bits(y) + uint32(int32(n))<<23)
}

func expT[T Float](x T) T {
	if is32[T]() {
		return T(expf(float32(x)))
	}
	return T(math.Exp(float64(x)))
}

func sqrtT[T Float](x T) T { return T(math.Sqrt(float64(x))) }

func zero[T Float](s []T) {
	for i := range s {
		s[i] = 0
	}
}

func unsafeSlice[T Float, S float32 | float64](s []S) []T {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&s[0])), len(s))
}

func expF64(x float64) float64 { return math.Exp(x) }

// mulArr sets dst[i] = a[i]·b[i] (dst may be a or b); the AVX2 loop rounds as Go does, so
// the two agree bit for bit.
func mulArr[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	if is32[T]() && haveAVX2 && len(dst) > 0 {
		mulVec(p32(dst), p32(a), p32(b), len(dst))
		return
	}
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

// mulAddArr adds a[i]·b[i] to dst[i], the product rounded before the sum (bit for bit the
// same on the AVX2 loop and in Go).
func mulAddArr[T Float](dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	if is32[T]() && haveAVX2 && len(dst) > 0 {
		mulAddVec(p32(dst), p32(a), p32(b), len(dst))
		return
	}
	for i := range dst {
		dst[i] += a[i] * b[i]
	}
}

// addArr adds src[i] to dst[i] (on the AVX2 loop in float32 where the CPU has it).
func addArr[T Float](dst, src []T) {
	src = src[:len(dst)]
	if is32[T]() && haveAVX2 && len(dst) > 0 {
		addVec(p32(dst), p32(src), len(dst))
		return
	}
	for i := range dst {
		dst[i] += src[i]
	}
}
