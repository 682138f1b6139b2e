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
// dead writer is reused. A symbolic link at the lock path is refused (ErrSymlink), never
// followed, and so is anything but a regular file (ErrNotRegular): in a shared directory
// another user could otherwise make the writer truncate a file of its user's.
func acquireLock(path string) (*fileLock, error) {
	lp := lockPath(path)
	for range 10 {
		f, err := openRegular(lp, os.O_RDWR|os.O_CREATE, FileMode, true)
		if err != nil {
			if errors.Is(err, ErrSymlink) {
				return nil, fmt.Errorf("sessions: lock %s: %s %w", path, lp, err)
			}
			if errors.Is(err, ErrNotRegular) {
				return nil, fmt.Errorf("sessions: lock %s: %s: %w", path, lp, err)
			}
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

// sameFile reports whether f is still the file at path (a link now at path is not).
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	if err != nil {
		return false
	}
	return os.SameFile(a, b)
}

// readPid is the pid written in a lock file, or 0 (also for a link or a file that is not
// regular, which it does not read).
func readPid(lp string) int {
	f, err := openRegular(lp, os.O_RDONLY, 0, true)
	if err != nil {
		return 0
	}
	defer f.Close()
	b := make([]byte, 32)
	k, _ := f.Read(b)
	n, err := strconv.Atoi(strings.TrimSpace(string(b[:k])))
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
