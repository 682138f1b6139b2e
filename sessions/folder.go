package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
			what = FileKind(fi.Mode())
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

// CheckNewFile checks that path can name a new session file before it is created: not a
// folder (the error names a file in it to give instead: run.wtlab, or run-2.wtlab… when
// that exists), in an existing, writable folder (a file is created there and removed to
// see). An existing file is left to Create, which names a live writer's lock. Each error's
// message starts with path.
func CheckNewFile(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder: name a session file in it (--out %s)", path, freeName(path))
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".windtunnel-probe-*")
	if err != nil {
		return fmt.Errorf("%s: directory %s is not writable", path, dir)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// freeName is a session file name inside the folder dir that is not taken.
func freeName(dir string) string {
	p := filepath.Join(dir, "run"+Suffix)
	for i := 2; i < 1000; i++ {
		if _, err := os.Stat(p); err != nil {
			break
		}
		p = filepath.Join(dir, fmt.Sprintf("run-%d%s", i, Suffix))
	}
	return p
}
