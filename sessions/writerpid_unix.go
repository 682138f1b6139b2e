//go:build unix

package sessions

import (
	"errors"
	"syscall"
)

// WriterPid is the pid of the live process on this machine that writes the session at
// path, read from the session's lock file (which a killed writer leaves behind, so the
// process is checked too), or 0 when none does. It never takes the lock.
func WriterPid(path string) int {
	pid := readPid(lockPath(path))
	if pid <= 0 {
		return 0
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return 0
	}
	return pid
}
