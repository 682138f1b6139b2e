package models

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuTime is the CPU time all the process's threads have used (the kernel's scheduler
// clock, to the nanosecond), which the benchmarks report beside the wall time: on a shared
// machine it varies less with the load.
func cpuTime() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
