//go:build !unix

package cpuclock

import "time"

// Process is 0: the process's CPU clock is read on Unix systems only.
func Process() time.Duration { return 0 }
