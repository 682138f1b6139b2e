//go:build unix

package sessions

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFileModes: a session, the SQLite files beside it while it is written, its lock file
// and the directories Create makes are its owner's only, whatever the umask.
func TestFileModes(t *testing.T) {
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "new", "dir")
	path := filepath.Join(dir, "s.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(Record{Step: 1, State: Training})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{path: FileMode, path + "-wal": FileMode, path + "-shm": FileMode, path + ".lock": FileMode,
		dir: DirMode, filepath.Dir(dir): DirMode}
	for p, m := range want {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if got := fi.Mode().Perm(); got != m {
			t.Errorf("%s: mode %v, want %v", p, got, m)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != FileMode {
		t.Errorf("closed session: %v %v", fi.Mode(), err)
	}
	if _, err := Create(path, testMeta(), WriterOptions{}); err == nil {
		t.Error("Create over an existing session succeeded")
	}
}
