package models

import "windtunnel/backends/gemm"

// The kernels below are the ones attention and the output layer run on, exported for
// computations outside a Model (lab/timescales' bare attention head): the AVX2 row kernels
// of vmath_amd64.s and rows_amd64.s in float32 where they run, portable loops otherwise.

// MatMul computes C = alpha·op(A)·op(B) + beta·C on row-major matrices through the backend,
// in T's precision (Sgemm or Dgemm).
func MatMul[T Float](be gemm.Backend, tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	mm(be, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SoftmaxRow replaces x (at least one element) by its softmax.
func SoftmaxRow[T Float](x []T) {
	if is32[T]() && haveAVX2 {
		softmaxRow(&as32(x)[0], len(x))
		return
	}
	softmaxInPlace(x)
}

// SoftmaxBack turns dp, the gradient with respect to a softmax's output p, into the
// gradient with respect to its input: dp[i] = p[i]·(dp[i] − Σ_j p[j]·dp[j]). p and dp have
// the same length (at least one).
func SoftmaxBack[T Float](p, dp []T) {
	if len(p) != len(dp) {
		panic("models: SoftmaxBack of slices of different lengths")
	}
	if is32[T]() && haveAVX2 {
		softmaxBack(&as32(p)[0], &as32(dp)[0], len(p))
		return
	}
	softmaxBackGo(p, dp)
}

// softmaxBackGo is SoftmaxBack's portable loop (the assembly kernel's reference).
func softmaxBackGo[T Float](p, dp []T) {
	var s T
	for j, pv := range p {
		s += pv * dp[j]
	}
	for j, pv := range p {
		dp[j] = pv * (dp[j] - s)
	}
}
