package gemm

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// FullBLAS is gonum's complete BLAS implementation with Sgemm and Dgemm routed to a Backend.
type FullBLAS struct {
	gonum.Implementation
	b Backend
}

// Compile-time checks: FullBLAS is a complete BLAS (as gorgonia.Use and
// tensor.Use want) and a Backend.
var (
	_ blas.Float32    = (*FullBLAS)(nil)
	_ blas.Float64    = (*FullBLAS)(nil)
	_ blas.Complex64  = (*FullBLAS)(nil)
	_ blas.Complex128 = (*FullBLAS)(nil)
	_ Backend         = (*FullBLAS)(nil)
)

// Full adapts a Backend to gonum's complete blas.Float32 and blas.Float64 interfaces (gonum's implementation for everything but Sgemm/Dgemm), so it can be handed to gorgonia.Use.
func Full(b Backend) *FullBLAS {
	if f, ok := b.(*FullBLAS); ok {
		b = f.b
	}
	return &FullBLAS{b: b}
}

// Backend returns the backend that Sgemm and Dgemm are routed to.
func (f *FullBLAS) Backend() Backend { return f.b }

// Name returns the name of the wrapped backend.
func (f *FullBLAS) Name() string { return f.b.Name() }

// Sgemm computes C = alpha·op(A)·op(B) + beta·C with the wrapped backend.
func (f *FullBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	f.b.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemm computes C = alpha·op(A)·op(B) + beta·C with the wrapped backend.
func (f *FullBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	f.b.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
