//go:build unix

package untrusted

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("12345"), 0o644)
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo, 10); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a FIFO") || !strings.Contains(err.Error(), fifo) {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile blocked on a FIFO")
	}
	if _, err := ReadFile(dir, 10); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a folder") {
		t.Errorf("folder: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "gone"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := ReadFile(ok, 4); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("over the limit: %v", err)
	}
	if b, err := ReadFile(ok, 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q %v", b, err)
	}
}
