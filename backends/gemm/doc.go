// Package gemm holds the matrix-multiply backends of the trainer: the project's own
// float32 GEMM ("go": packed panels and a 6×16 micro-kernel in Go assembly for AVX2+FMA,
// chosen at run time — on CPUs with AVX-512, two whole tiles side by side run as one 6×32
// tile in zmm registers, bit-identical to two 6×16 ones — with a portable Go kernel
// elsewhere; float64 products are gonum's),
// OpenBLAS loaded at run time with purego (no cgo), gonum's pure-Go BLAS, a wrapper that
// splits large products over goroutines, and an adapter to gonum's complete BLAS
// interfaces for gorgonia.Use.
//
// The go backend packs op(B) once per k block into slivers of 16 columns shared by all its
// workers, and deals C out in blocks of rows, each packing its rows of op(A) (or, untransposed,
// reading them in place); every element of C is computed by the same operations whatever
// the worker count, so its results are bit-identical for any number of workers.
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
// The float32 products of the go and OpenBLAS backends flush subnormal inputs and results to
// zero (backends/fpu): a trained network's products underflow, and each subnormal costs the
// core a microcode assist. gonum's do not, nor does any float64 product.
//
// OpenBLAS is run with one thread of its own: on the 2-core target machine
// OpenBLAS's worker threads spin between small GEMMs and were measured to be
// slower than one thread, so the second core is used by Parallel instead.
package gemm
