package untrusted

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is the error (wrapped) for a path that is a FIFO, a device, a socket or a
// folder where a regular file is wanted.
var ErrNotRegular = errors.New("not a regular file")

// FileKind names the type of a file that is not a regular one ("a folder", "a FIFO", …), as
// messages about a path that should have been a file say it.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "type " + m.Type().String()
}

// notRegular is the error for path, of mode m.
func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s, %w", path, FileKind(m), ErrNotRegular)
}

// Open opens the regular file at path for reading, and its size: anything else is refused
// (ErrNotRegular) before it is opened, and it is opened without blocking (a FIFO put in
// its place after the check is refused too, not waited on). A missing file's error wraps
// os.ErrNotExist. Errors name the path.
func Open(path string) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err // an *fs.PathError: it names the path
	}
	if !st.Mode().IsRegular() {
		return nil, 0, notRegular(path, st.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("stat %s: %w", path, err)
	}
	if !st.Mode().IsRegular() { // replaced since the Stat
		f.Close()
		return nil, 0, notRegular(path, st.Mode())
	}
	f.Fd() // back to blocking mode: an ordinary file
	return f, st.Size(), nil
}

// ReadFile reads the regular file at path (see Open), which must be at most limit bytes:
// a larger one is refused before it is read. Errors name the path.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, fmt.Errorf("%s: %d bytes, over the limit of %d", path, size, limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: over the limit of %d bytes", path, limit)
	}
	return b, nil
}
