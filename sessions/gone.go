package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrGone is the error (wrapped) a Writer stops with when its session file is no longer at
// its path: removed (say with its folder) or replaced by another file. The writer's
// commits would go on succeeding into a file nobody can open any more, so a run would end
// "done" with nothing recorded; instead the run stops, naming the file, as on a full disk.
var ErrGone = errors.New("the session file was removed or replaced while the run was writing it")

// present reports whether the file at w.path is still the one the writer opened (same
// device and inode), as an error wrapping ErrGone when not. The writer checks it at every
// commit (each interval, each checkpoint) and when it closes.
func (w *Writer) present() error {
	st, err := os.Stat(w.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w (no file there now)", ErrGone)
	case err != nil:
		return err
	case w.ident != nil && !os.SameFile(st, w.ident):
		return fmt.Errorf("%w (another file is there now)", ErrGone)
	}
	return nil
}
