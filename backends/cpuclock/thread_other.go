//go:build !linux

package cpuclock

import "time"

// Thread returns how long f took: wall time, the thread's CPU clock being read on Linux only.
func Thread(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}
