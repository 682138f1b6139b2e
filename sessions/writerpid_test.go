//go:build unix

package sessions

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriterPid: a live writer's pid while the session is written, 0 once it is closed,
// and 0 for a lock file left behind naming a process that no longer exists.
func TestWriterPid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.wtlab")
	if got := WriterPid(path); got != 0 {
		t.Fatalf("no session: WriterPid = %d, want 0", got)
	}
	w, err := Create(path, testMeta(), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := WriterPid(path); got != os.Getpid() {
		t.Errorf("while writing: WriterPid = %d, want %d", got, os.Getpid())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := WriterPid(path); got != 0 {
		t.Errorf("closed: WriterPid = %d, want 0", got)
	}
	// A killed writer's lock file: its pid is gone (pid_max is below 1<<22 + 1 on Linux).
	if err := os.WriteFile(path+".lock", []byte("4194305\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := WriterPid(path); got != 0 {
		t.Errorf("stale lock file: WriterPid = %d, want 0", got)
	}
}
