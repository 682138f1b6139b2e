//go:build unix

package lab

import "syscall"

// rlimitAS is the soft RLIMIT_AS; false when it cannot be read.
func rlimitAS() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil {
		return 0, false
	}
	return uint64(r.Cur), true
}
