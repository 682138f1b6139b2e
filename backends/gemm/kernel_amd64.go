//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// kernel6x16AVX2 is the AVX2+FMA micro-kernel (kernel_amd64.s).
//
//go:noescape
func kernel6x16AVX2(k int, a, b, c *float32, ldc int, alpha, beta float32)

// kernel6x16AVX2Rows is kernel6x16AVX2 reading A in place from six rows lda apart.
//
//go:noescape
func kernel6x16AVX2Rows(k int, a *float32, lda int, b, c *float32, ldc int, alpha, beta float32)

// kernel6x32AVX512 computes a 6×32 tile from an A sliver and two B slivers bs elements
// apart, with the sums and roundings of two kernel6x16AVX2 calls (kernel512_amd64.s).
//
//go:noescape
func kernel6x32AVX512(k int, a, b *float32, bs int, c *float32, ldc int, alpha, beta float32)

// kernel6x32AVX512Rows is kernel6x32AVX512 reading A in place from six rows lda apart.
//
//go:noescape
func kernel6x32AVX512Rows(k int, a *float32, lda int, b *float32, bs int, c *float32, ldc int, alpha, beta float32)

// avx2Kernel wraps the assembly kernels, checking the bounds they rely on.
var avx2Kernel = kernel{name: "avx2+fma 6×16",
	full: func(k int, a, b, c []float32, ldc int, alpha, beta float32) {
		_, _, _ = a[mr*k-1], b[nr*k-1], c[(mr-1)*ldc+nr-1]
		kernel6x16AVX2(k, &a[0], &b[0], &c[0], ldc, alpha, beta)
	},
	rows: func(k int, a []float32, lda int, b, c []float32, ldc int, alpha, beta float32) {
		_, _, _ = a[(mr-1)*lda+k-1], b[nr*k-1], c[(mr-1)*ldc+nr-1]
		kernel6x16AVX2Rows(k, &a[0], lda, &b[0], &c[0], ldc, alpha, beta)
	},
}

// avx512Kernel is avx2Kernel with pairs of adjacent whole tiles computed as one 6×32 tile
// in zmm registers: twice the multiply-adds per instruction, the same results bit for bit.
var avx512Kernel = kernel{name: "avx-512 6×32", full: avx2Kernel.full, rows: avx2Kernel.rows,
	pair: func(k int, a, b []float32, bs int, c []float32, ldc int, alpha, beta float32) {
		_, _, _ = a[mr*k-1], b[bs+nr*k-1], c[(mr-1)*ldc+2*nr-1]
		kernel6x32AVX512(k, &a[0], &b[0], bs, &c[0], ldc, alpha, beta)
	},
	pairRows: func(k int, a []float32, lda int, b []float32, bs int, c []float32, ldc int, alpha, beta float32) {
		_, _, _ = a[(mr-1)*lda+k-1], b[bs+nr*k-1], c[(mr-1)*ldc+2*nr-1]
		kernel6x32AVX512Rows(k, &a[0], lda, &b[0], bs, &c[0], ldc, alpha, beta)
	},
}

// haveAVX512 reports whether the AVX-512 kernel runs here (x/sys/cpu sets the AVX-512 flags
// only where the OS saves the zmm state).
var haveAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX2 && cpu.X86.HasFMA

// bestKernel is the fastest micro-kernel this CPU runs.
func bestKernel() kernel {
	switch {
	case haveAVX512:
		return avx512Kernel
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return avx2Kernel
	}
	return genericKernel
}

// kernels lists every micro-kernel this CPU runs, for tests.
func kernels() []kernel {
	switch {
	case haveAVX512:
		return []kernel{avx512Kernel, avx2Kernel, genericKernel}
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return []kernel{avx2Kernel, genericKernel}
	}
	return []kernel{genericKernel}
}
