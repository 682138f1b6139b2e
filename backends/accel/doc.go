// Package accel is what a device-resident training step drives: the Device interface (memory,
// copies, kernel launches and row-major matrix products on one accelerator), the catalogue of
// kernels with their CUDA C source (kernels.cu, compiled at run time by NVRTC) and the argument
// kinds Go launches them with, typed launch helpers, and Host, a Device whose memory is Go
// slices and whose kernels are Go functions computing what the CUDA ones compute.
//
// Host lets the device executor (package models) be tested without a GPU; the CUDA Device is in
// package cuda. A kernel's arguments are checked against its catalogue entry at every launch,
// and a contract test checks the catalogue against the signatures in kernels.cu.
package accel
