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

// bestKernel is the fastest micro-kernel this CPU runs.
func bestKernel() kernel {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return avx2Kernel
	}
	return genericKernel
}

// kernels lists every micro-kernel this CPU runs, for tests.
func kernels() []kernel {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return []kernel{avx2Kernel, genericKernel}
	}
	return []kernel{genericKernel}
}
