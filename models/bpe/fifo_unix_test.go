//go:build unix

package bpe

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadRefusesFIFO: a FIFO named tokenizer.json is refused at once, not read (which would
// wait for a writer forever).
func TestLoadRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(p); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("error %v, want not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}
}
