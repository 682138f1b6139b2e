// Package gemm holds the matrix-multiply backends of the trainer: OpenBLAS
// loaded at run time with purego (no cgo), gonum's pure-Go BLAS as the
// fallback, a wrapper that splits large products over goroutines, and an
// adapter to gonum's complete BLAS interfaces for gorgonia.Use.
//
// All matrices are row-major and every Backend follows the argument
// conventions and checks of gonum's blas.Float32.Sgemm and blas.Float64.Dgemm:
//
//	C = alpha·op(A)·op(B) + beta·C
//
// where op(A) is m×k, op(B) is k×n and C is m×n. When beta is zero C is not
// read (NaNs in C are overwritten). The OpenBLAS backend also does not read A
// and B when alpha or k is zero (it only scales C), whereas gonum does read
// them when alpha is zero and beta is not one.
//
// OpenBLAS is run with one thread of its own: on the 2-core target machine
// OpenBLAS's worker threads spin between small GEMMs and were measured to be
// slower than one thread, so the second core is used by Parallel instead.
package gemm
