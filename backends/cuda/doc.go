// Package cuda is a gemm.Backend that runs matrix products on an NVIDIA GPU
// with cuBLAS. The CUDA driver (libcuda.so.1) and cuBLAS (libcublas.so.13 or
// .12) are loaded at run time with purego: the package needs no cgo and no
// CUDA headers, builds with CGO_ENABLED=0, and one binary serves machines
// with and without a GPU. Open fails with an error wrapping ErrNoDriver,
// ErrNoDevice or ErrNoCUBLAS where a part is missing; nothing panics on a
// machine without a GPU.
//
// Each product on the GPU copies A and B to device memory (grow-only pooled
// buffers, plain cuMemAlloc allocations, never managed memory), and C when
// beta is not zero, runs cublasSgemm_v2 or cublasDgemm_v2 and copies C back.
// Slices registered with Backend.Resident (the weights) are uploaded once and
// reused until Backend.Invalidate, which the trainer calls after each
// optimiser update. Products smaller than Options.Threshold multiply-adds run
// on the CPU backend, where they are faster than the copies. FP32 products use
// cuBLAS's default math mode (no TF32), so results agree with the CPU within
// float32 rounding.
//
// Row-major to column-major: cuBLAS is column-major, and a row-major matrix
// is its transpose in column-major order, so the row-major C = op(A)·op(B) is
// computed as the column-major Cᵀ = op(B)ᵀ·op(A)ᵀ, i.e. cuBLAS is called with
// (opB, opA, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc) (see colMajor).
//
// Threads: CUDA keeps the current context per OS thread, and Go moves
// goroutines between threads. Every sequence of CUDA calls (one product, Close)
// runs with a mutex held, on the calling goroutine locked to its OS thread
// (runtime.LockOSThread), after making the device's primary context current
// there (cuCtxSetCurrent, which costs little when it already is). This was
// preferred to a dedicated GPU goroutine fed by a channel: no hand-off latency
// per product and no goroutine to stop. The trainer may call GEMMs from several
// goroutines: GPU products are serialised (one device, one cuBLAS handle, one
// set of buffers), while products below the threshold run on the CPU backend
// concurrently, without the lock.
//
// Errors during a product (an allocation that fails, a CUDA error) do not
// panic: the product is computed on the CPU backend, the GPU is turned off for
// the rest of the Backend's life (every later product runs on the CPU), and
// Backend.Err reports why. The one exception is a failed copy of C back to the
// host when beta is not zero, which leaves C partly overwritten: that panics.
//
// GPU time (Backend.GPUTime, Backend.Stats) is the wall time spent in GPU
// products, copies included, so that the caller can report the share of a
// training step spent on the GPU.
package cuda
