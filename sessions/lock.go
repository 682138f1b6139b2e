package sessions

import (
	"errors"
	"fmt"
)

// ErrLocked is the error (wrapped in a *LockError) Create and Append return when another
// live Writer, in this process or another, has the session open.
var ErrLocked = errors.New("is being written by another run")

// LockError says who holds a session: the holder's pid (0 when it could not be read) and
// the lock file.
type LockError struct {
	Path string
	Lock string
	Pid  int
}

func (e *LockError) Error() string {
	holder := "pid unknown"
	if e.Pid > 0 {
		holder = fmt.Sprintf("pid %d", e.Pid)
	}
	return fmt.Sprintf("sessions: %s %v (%s, lock %s)", e.Path, ErrLocked, holder, e.Lock)
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockError) Unwrap() error { return ErrLocked }

// lockPath is the sidecar a Writer holds an advisory lock on for its lifetime: the session
// path with ".lock" added. It holds the writer's pid. Readers never look at it, so they are
// never blocked; Close removes it, so a closed session is one file again. A lock file left
// by a killed writer holds no lock (the kernel drops it with the process) and is reused.
func lockPath(path string) string { return path + ".lock" }
