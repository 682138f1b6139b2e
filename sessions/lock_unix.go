//go:build unix

package sessions

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// fileLock is a held flock(2) on a session's lock file.
type fileLock struct {
	path string
	f    *os.File
}

// acquireLock takes the session's lock file without waiting: a *LockError naming the
// holder when a live writer has it. The lock file is created if missing; one left by a
// dead writer is reused.
func acquireLock(path string) (*fileLock, error) {
	lp := lockPath(path)
	for range 10 {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, FileMode)
		if err != nil {
			return nil, fmt.Errorf("sessions: lock %s: %w", path, err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, &LockError{Path: path, Lock: lp, Pid: readPid(lp)}
			}
			return nil, fmt.Errorf("sessions: lock %s: %w", path, err)
		}
		// The holder removes the file before it unlocks: a lock taken on a file that is no
		// longer at lp (removed, or replaced by a newer writer's) guards nothing; try again.
		if !sameFile(f, lp) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		return &fileLock{path: lp, f: f}, nil
	}
	return nil, fmt.Errorf("sessions: lock %s: %s keeps changing", path, lp)
}

// sameFile reports whether f is still the file at path.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	if err != nil {
		return false
	}
	return os.SameFile(a, b)
}

// readPid is the pid written in a lock file, or 0.
func readPid(lp string) int {
	b, err := os.ReadFile(lp)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return n
}

// release removes the lock file and then drops the lock (in that order, so that whoever
// takes the lock next on the old file sees it is gone and makes a new one).
func (l *fileLock) release() {
	if l == nil || l.f == nil {
		return
	}
	os.Remove(l.path)
	l.f.Close()
	l.f = nil
}
