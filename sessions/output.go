package sessions

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrOutputLink is the error (wrapped) for an output path (a report, a figure, a record
// written into a folder the user names) that is a symbolic link: one planted there would
// make the program overwrite the file it points to, so an output is never written through
// a link it did not make.
var ErrOutputLink = errors.New("is a symbolic link (an output is never written through one; remove it first)")

// CheckOutput reports whether path may be written as an output (WriteOutput): nothing
// there, or a regular file. A symbolic link is refused with ErrOutputLink, anything but a
// regular file (a folder, a FIFO, a device) with ErrNotRegular; the error names the path.
func CheckOutput(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("sessions: write %s: %w", path, err)
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("sessions: write %s: %w", path, ErrOutputLink)
	case !st.Mode().IsRegular():
		return fmt.Errorf("sessions: write %s: %w (%s)", path, ErrNotRegular, FileKind(st.Mode()))
	}
	return nil
}

// WriteOutput writes data to path as an output with mode perm (WriteOutputFunc).
func WriteOutput(path string, data []byte, perm fs.FileMode) error {
	return WriteOutputFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteOutputFunc writes an output file at path with mode perm, its contents what write
// writes: into a new temporary file beside it (created exclusively, so never an existing
// file or a link), synced, then renamed over path. A path that is a symbolic link or not a
// regular file is refused before anything is written (CheckOutput); the rename replaces a
// link planted after that check, never the file it points to. When write or the disk
// fails (a full disk), the temporary file is removed and an older file at path stays as
// it was: path never holds a partial or empty output.
func WriteOutputFunc(path string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	if err := CheckOutput(path); err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("sessions: write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return fmt.Errorf("sessions: write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("sessions: write %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("sessions: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sessions: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sessions: write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("sessions: write %s: %w", path, err)
	}
	return nil
}

// MakeOutputDir makes the folder path (mode perm) that the program keeps inside a folder
// the user names (report's fig/, a sweep's logs/), or checks the one there: a symbolic link at path is refused with
// ErrOutputLink (files renamed into the folder it points to would replace that folder's),
// anything but a folder with ErrNotFolder.
func MakeOutputDir(path string, perm fs.FileMode) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(path, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("sessions: make %s: %w", path, err)
		}
		return MakeOutputDir(path, perm) // made, or made meanwhile by someone else: check it
	case err != nil:
		return fmt.Errorf("sessions: make %s: %w", path, err)
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("sessions: make %s: %w", path, ErrOutputLink)
	case !st.IsDir():
		return fmt.Errorf("sessions: make %s: %w (%s)", path, ErrNotFolder, FileKind(st.Mode()))
	}
	return nil
}
