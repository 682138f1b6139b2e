//go:build !linux

package bpe

import "time"

// threadCPU returns how long f took (wall time: the thread's CPU clock is read on Linux only).
func threadCPU(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}
