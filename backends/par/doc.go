// Package par runs loop bodies on a fixed number of goroutines: contiguous chunks of rows,
// one block per worker, or items dealt one at a time from a shared counter. The kernels in
// models, the GEMM splitting in backends/gemm and the optimiser in lab share it, so every
// parallel loop in a training step starts its goroutines the same way, each in the
// floating-point mode of the goroutine that starts it (backends/fpu: subnormals flushed).
package par
