//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOSession: a FIFO named like a session must make every command that reads sessions
// say that it is not a regular file, at once; opening it for reading would wait forever.
func TestFIFOSession(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.wtlab")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, args := range [][]string{
		{"info", fifo},
		{"export", fifo},
		{"probe", fifo},
		{"replay", fifo},
		{"plot", fifo, "--out", out},
		{"report", fifo, "--out", out},
		{"compare", "--from", dir},
		{"run", "--headless", "--resume", fifo},
		{"ls", "--dir", dir},
	} {
		t.Run(args[0], func(t *testing.T) {
			type result struct {
				code      int
				out, errs string
			}
			done := make(chan result, 1)
			go func() {
				code, o, e := runCLI(args...)
				done <- result{code, o, e}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s blocked for 10 s", strings.Join(args, " "))
			}
			if !strings.Contains(r.errs, fifo+": not a regular file") {
				t.Errorf("exit %d, stderr %q; want it to say %s is not a regular file", r.code, r.errs, fifo)
			}
		})
	}
}
