//go:build !amd64 || purego

package gemm

// bestKernel is the fastest micro-kernel this CPU runs.
func bestKernel() kernel { return genericKernel }

// kernels lists every micro-kernel this CPU runs, for tests.
func kernels() []kernel { return []kernel{genericKernel} }
