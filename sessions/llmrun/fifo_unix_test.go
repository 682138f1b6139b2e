//go:build unix

package llmrun

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadRefusesAFIFO names a FIFO as an llm run's record: Read refuses it at once (it
// opened it first, and the open waited for a writer forever).
func TestReadRefusesAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "results.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Read(p); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), p+" is a FIFO") {
			t.Errorf("error %v, want one saying %s is a FIFO", err, p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read waited on the FIFO")
	}
}
