// Package accel is what a device-resident training step drives: the Device interface (memory,
// copies, kernel launches and row-major matrix products on one accelerator), the catalogue of
// kernels with their CUDA C source (kernels.cu, compiled at run time by NVRTC) and the argument
// kinds Go launches them with, typed launch helpers, and Host, a Device whose memory is Go
// slices and whose kernels are Go functions computing what the CUDA ones compute.
//
// Host lets the device executor (package models) be tested without a GPU; the CUDA Device is in
// package cuda. A kernel's arguments are checked against its catalogue entry at every launch,
// and a contract test checks the catalogue against the signatures in kernels.cu.
//
// ParityRun launches every kernel at odd sizes and at the quick preset's, over grids smaller
// than the work and over the grids the launch helpers give, outputs NaN-filled, on two devices
// and compares every element within ParityTol. Besides a GPU (package cuda's tests), it checks
// the CUDA source itself on the CPU where clang is installed: TestCUDASourceOnCPU compiles
// kernels.cu unchanged as host C++ against testdata/cuda_host_shim.h (a block's threads are
// fibers that run in a fresh random order after every __syncthreads, a real barrier, and a
// barrier not every thread reaches fails the launch; __shared__ memory is NaN before every
// block; blocks run one at a time, last first; undefined behaviour traps), loads it with purego
// (no cgo) and runs it against the Go versions, in guarded buffers that catch a write past an
// allocation. What it cannot show is what needs a GPU: blocks at the same time, warps, NVRTC's
// code generation; the GPU parity test covers those.
package accel
