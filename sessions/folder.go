package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotFolder is the error (wrapped) for a path named as a folder of sessions (ls --dir,
// compare --from) that is a file, a FIFO or anything else but a folder.
var ErrNotFolder = errors.New("not a folder")

// CheckFolder reports whether path is a folder that can be read for sessions: a folder, or
// a symbolic link to one. The error names the path and what it is instead: one that does
// not exist ("runs: no such folder") wraps fs.ErrNotExist, one that is not a folder ("runs
// is a FIFO, not a folder") ErrNotFolder.
func CheckFolder(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return folderError{path + ": no such folder", fs.ErrNotExist}
	case err != nil:
		return err // an *fs.PathError: it names the path
	case !fi.IsDir():
		what := "a file"
		if !fi.Mode().IsRegular() {
			what = kindOf(fi.Mode())
		}
		return folderError{fmt.Sprintf("%s is %s, not a folder", path, what), ErrNotFolder}
	}
	return nil
}

// folderError is CheckFolder's error: its message, and the error it wraps.
type folderError struct {
	msg string
	err error
}

func (e folderError) Error() string { return e.msg }
func (e folderError) Unwrap() error { return e.err }
