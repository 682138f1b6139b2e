//go:build unix

package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFONotOpened: a FIFO named like a session (or like the log SQLite would open beside
// one in WAL mode) must be refused at once with ErrNotRegular, by Open and by Append; a
// blocking open(2) of a FIFO waits for a writer forever.
func TestFIFONotOpened(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.wtlab")
	must(t, syscall.Mkfifo(fifo, 0o600))

	// A session left in WAL mode (the header copied while a writer had it open), with a
	// FIFO where its log would be.
	live := filepath.Join(dir, "live.wtlab")
	w, err := Create(live, testMeta(), WriterOptions{Interval: time.Hour})
	must(t, err)
	for _, r := range synth(5) {
		w.Record(r)
	}
	must(t, w.Flush())
	data, err := os.ReadFile(live)
	must(t, err)
	must(t, w.Close())
	walFIFO := filepath.Join(dir, "walfifo.wtlab")
	must(t, os.WriteFile(walFIFO, data, 0o600))
	must(t, syscall.Mkfifo(walFIFO+"-wal", 0o600))

	for _, c := range []struct {
		name, path, names string
		open              func(string) error
	}{
		{"Open fifo", fifo, fifo, func(p string) error { r, err := Open(p); closeIf(r, err); return err }},
		{"Append fifo", fifo, fifo, func(p string) error {
			w, _, err := Append(p, 0, WriterOptions{})
			if err == nil {
				w.Close()
			}
			return err
		}},
		{"Open fifo -wal", walFIFO, walFIFO + "-wal", func(p string) error { r, err := Open(p); closeIf(r, err); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- c.open(c.path) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("%s blocked for 5 s", c.name)
			}
			if !errors.Is(err, ErrNotRegular) {
				t.Fatalf("err = %v, want ErrNotRegular", err)
			}
			if want := "sessions: open " + c.path + ": "; !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), c.names) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("err = %q, want %q… naming %s, not a regular file", err, want, c.names)
			}
		})
	}
}

// closeIf closes r when it was opened.
func closeIf(r *Reader, err error) {
	if err == nil {
		r.Close()
	}
}
