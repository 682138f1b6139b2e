//go:build unix && !linux

package sessions

import (
	"os"
	"syscall"
)

// holdsOpen reports whether process pid exists and may be signalled by this user (without
// /proc, whether it has f open cannot be told: the held lock and the host vouch for it).
func holdsOpen(pid int, f *os.File) bool { return syscall.Kill(pid, 0) == nil }
