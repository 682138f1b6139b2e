// Package devices reports where runs compute (windtunnel device): Probe finds the CPU's
// matrix-product backend (the one --blas auto picks, the go backend's micro-kernel, OpenBLAS
// if it loads) and kernel threads, and whether --device cuda would find an NVIDIA GPU (its
// driver, cuBLAS and NVRTC, or why not: the paths searched and the variable that adds one);
// Report.Text prints it within Width columns. Reason is the one wording of why the GPU
// cannot be used, which a run's --device error gives too.
//
// It imports backends/cuda and backends/gemm.
package devices
