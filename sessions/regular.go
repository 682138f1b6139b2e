package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"windtunnel/backends/untrusted"
)

// ErrNotRegular is the error (wrapped) for a session, lock or log path that is a FIFO, a
// device, a socket or a directory: opening a FIFO for reading would wait for a writer
// forever, so such paths are refused before anything reads them.
var ErrNotRegular = errors.New("not a regular file")

// ErrSymlink is the error (wrapped) for a lock or log path that is a symbolic link: in a
// shared directory another user could point it at a file of the user running windtunnel,
// which would then be truncated or appended to, so such links are never followed.
var ErrSymlink = errors.New("is a symbolic link (not followed for a file written beside a session)")

// openRegular opens path with flag (and perm when it creates the file) without blocking on
// a FIFO or device (O_NONBLOCK), and returns it only when it is a regular file. With
// noFollow a symbolic link at path is refused (O_NOFOLLOW) rather than followed. Errors
// other than open(2)'s own (an *fs.PathError) do not name the path: see openError.
func openRegular(path string, flag int, perm fs.FileMode, noFollow bool) (*os.File, error) {
	extra := openNonBlock
	if noFollow {
		extra |= openNoFollow
	}
	f, err := os.OpenFile(path, flag|extra, perm)
	if err != nil {
		// Say why when it is the path's type (a FIFO opened for writing with no reader
		// fails with ENXIO, a link with ELOOP).
		stat := os.Stat
		if noFollow {
			stat = os.Lstat
		}
		if st, serr := stat(path); serr == nil {
			switch {
			case st.Mode()&fs.ModeSymlink != 0:
				return nil, ErrSymlink
			case !st.Mode().IsRegular():
				return nil, fmt.Errorf("%w (%s)", ErrNotRegular, FileKind(st.Mode()))
			}
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, FileKind(st.Mode()))
	}
	// Fd puts the descriptor back into blocking mode, so that a child process handed the
	// file (a detached run's log) sees an ordinary file.
	f.Fd()
	return f, nil
}

// OpenLog opens the log file at path (a session's <session>.log, a viewer's log) for
// appending, creating it with FileMode. A symbolic link at path is refused with ErrSymlink
// and anything but a regular file with ErrNotRegular, so that a link planted in a shared
// directory cannot make windtunnel append to a file of its choosing.
func OpenLog(path string) (*os.File, error) {
	f, err := openRegular(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, FileMode, true)
	if err != nil {
		return nil, openError("log", path, err)
	}
	return f, nil
}

// FileKind names the type of a file that is not a regular one ("a folder", "a FIFO", …), as
// messages about a path that should have been a file say it.
func FileKind(m fs.FileMode) string { return untrusted.FileKind(m) }
