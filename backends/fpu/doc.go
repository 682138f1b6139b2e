// Package fpu holds the floating-point mode of the calling thread: flushing subnormal
// numbers to zero while a float32 computation runs.
//
// A subnormal operand or result (below 1.2e-38 in float32) costs x86 cores a microcode
// assist, about a hundred cycles a multiply. A network that has learnt its task produces
// them: its attention weights and gradients become tiny, and their products underflow.
// Measured on the quick recall transformer once it has bound (docs/speed.md: Subnormal
// numbers), its steps took 2.7 times the CPU they take with subnormals flushed, the matrix
// products most of it. FlushSubnormals sets the SSE control register's flush-to-zero and
// denormals-are-zero bits (FTZ, DAZ) for the calling goroutine, locked to its thread until
// Restore, so no other goroutine runs under the mode; backends/par's workers take the mode
// of the goroutine that starts them. On other architectures the functions do nothing.
package fpu
