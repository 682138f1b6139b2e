//go:build unix

package sessions

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// fileLock is a held flock(2) on a session's lock file.
type fileLock struct {
	path string
	f    *os.File
}

// lockBusyWait is how long acquireLock retries a lock that is busy: LockHolder holds a
// shared lock on the file for the moment it takes to see whether anyone holds it, and a
// writer starting in that moment must not read it as another writer's. Probes that follow
// each other (ls, serve, several viewers) can keep the shared lock taken for a while on a
// loaded machine: 50 ms was starved by two probing goroutines under the race detector at
// load 8 (TestLockHolderNeverRefusesAWriter, 2 runs in 9), so half a second; a second writer
// is refused after it.
const lockBusyWait = 500 * time.Millisecond

// acquireLock takes the session's lock file without waiting for a writer: a *LockError
// naming the holder when a live writer has it. The lock file is created if missing; one
// left by a dead writer is reused. It then holds this process's pid and host name
// (lockText). A symbolic link at the lock path is refused (ErrSymlink), never followed,
// and so is anything but a regular file (ErrNotRegular): in a shared directory another
// user could otherwise make the writer truncate a file of its user's.
func acquireLock(path string) (*fileLock, error) {
	lp := lockPath(path)
	busySince := time.Time{}
	for range 1000 { // busy retries sleep 5 ms: ≈ 100 of them in lockBusyWait
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
			if !errors.Is(err, unix.EWOULDBLOCK) {
				return nil, fmt.Errorf("sessions: lock %s: %w", path, err)
			}
			if busySince.IsZero() {
				busySince = time.Now()
			}
			if time.Since(busySince) < lockBusyWait { // a LockHolder probe, perhaps
				time.Sleep(5 * time.Millisecond)
				continue
			}
			h := LockHolder(path)
			return nil, &LockError{Path: path, Lock: lp, Pid: h.Pid, Host: h.Host}
		}
		// The holder removes the file before it unlocks: a lock taken on a file that is no
		// longer at lp (removed, or replaced by a newer writer's) guards nothing; try again.
		if !sameFile(f, lp) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(lockText(os.Getpid(), hostName())), 0)
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

// LockHolder says who holds the lock of the session (or other file: Hold) at path, never
// taking it for longer than a look: a shared flock(2) attempt that succeeds means nobody
// holds it (the lock file is then a killed writer's, whose pid may since name another
// process), and Holder is empty. A held lock's Pid and Host are what its file says, and
// Local is set only when the host is this one and the process with that pid has the lock
// file open (where /proc tells) or exists (elsewhere). A link or a file that is not
// regular at the lock path is not read: nobody holds it.
func LockHolder(path string) Holder {
	lp := lockPath(path)
	f, err := openRegular(lp, os.O_RDONLY, 0, true)
	if err != nil {
		return Holder{}
	}
	defer f.Close()
	// No error other than "someone holds it" says that someone does.
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err == nil || !errors.Is(err, unix.EWOULDBLOCK) {
		if err == nil {
			unix.Flock(int(f.Fd()), unix.LOCK_UN)
		}
		return Holder{}
	}
	b := make([]byte, maxLockText)
	k, _ := f.ReadAt(b, 0)
	h := Holder{Held: true}
	h.Pid, h.Host = parseLockText(b[:k])
	if h.Pid > 0 && h.Host != "" && h.Host == hostName() {
		h.Local = holdsOpen(h.Pid, f)
	}
	return h
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
