package bpe

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU runs f on one locked thread and returns the CPU time that thread used: the
// cost of the work itself, not of waiting for a core on a loaded machine (the hostile tests'
// bounds are on the algorithm).
func threadCPU(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	now := func() time.Duration {
		var ts unix.Timespec
		if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
			return 0
		}
		return time.Duration(ts.Nano())
	}
	t0 := now()
	f()
	return now() - t0
}
