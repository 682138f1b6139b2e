//go:build unix

package reports

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadTimescalesSkipsAFIFO gives report a FIFO named *.json: LoadTimescales skips it at
// once with the reason (it opened it, and the open waited for a writer forever).
func TestLoadTimescalesSkipsAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ts.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	done := make(chan []string, 1)
	go func() { _, skipped, _ := LoadTimescales([]string{p}); done <- skipped }()
	select {
	case skipped := <-done:
		if len(skipped) != 1 || !strings.Contains(skipped[0], "is a FIFO") {
			t.Errorf("skipped %q, want the FIFO with its reason", skipped)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LoadTimescales waited on the FIFO")
	}
}
