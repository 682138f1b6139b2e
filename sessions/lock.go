package sessions

import (
	"errors"
	"fmt"
)

// ErrLocked is the error (wrapped in a *LockError) Create and Append return when another
// live Writer, in this process or another, has the session open.
var ErrLocked = errors.New("is being written by another run")

// LockError says who holds a session: the holder's pid (0 when it could not be read), its
// host (as its lock file names it) and the lock file.
type LockError struct {
	Path string
	Lock string
	Pid  int
	Host string
}

func (e *LockError) Error() string {
	holder := "pid unknown"
	if e.Pid > 0 {
		holder = fmt.Sprintf("pid %d", e.Pid)
		if e.Host != "" && e.Host != hostName() {
			holder += " on host " + SafeText(e.Host)
		}
	}
	return fmt.Sprintf("sessions: %s %v (%s, lock %s)", e.Path, ErrLocked, holder, e.Lock)
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockError) Unwrap() error { return ErrLocked }

// Hold takes path's lock file (path + ".lock", as a Writer takes its session's) for a
// process that works on the file at path — a sweep's local engine on its manifest — so
// that WriterPid names it and no second process takes it: a *LockError naming the holder
// when a live process holds it. release drops it.
func Hold(path string) (release func(), err error) {
	l, err := acquireLock(path)
	if err != nil {
		return nil, err
	}
	return l.release, nil
}
