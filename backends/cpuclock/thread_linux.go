package cpuclock

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Thread runs f on one locked thread and returns the CPU time that thread used (work f hands
// to other goroutines is not counted).
func Thread(f func()) time.Duration {
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
