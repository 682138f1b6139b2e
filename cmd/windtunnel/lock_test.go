//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestResumeLiveSession checks that --resume of a session another writer holds open
// refuses, naming the holder and the lock, and that it goes ahead once that writer closes.
func TestResumeLiveSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "live.wtlab")
	if code, _, errs := runCLI(append([]string{"run", "--headless", "--steps", "60", "--out", path}, tinyRun...)...); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	w, _, err := sessions.Append(path, 60, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI("run", "--headless", "--resume", path, "--steps", "80")
	if code != 1 {
		t.Errorf("resume of a live session: exit %d, want 1: %s", code, errs)
	}
	for _, s := range []string{"being written by another run", fmt.Sprintf("pid %d", os.Getpid()), path + ".lock"} {
		if !strings.Contains(errs, s) {
			t.Errorf("resume of a live session says %q, want it to name %q", errs, s)
		}
	}
	// A second run on the same --out refuses the same way.
	code, _, errs = runCLI(append([]string{"run", "--headless", "--steps", "60", "--out", path}, tinyRun...)...)
	if code != 1 || !strings.Contains(errs, "being written by another run") || !strings.Contains(errs, path+".lock") {
		t.Errorf("run --out a live session: exit %d, want 1 naming the lock: %s", code, errs)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("run", "--headless", "--resume", path, "--steps", "80"); code != 0 {
		t.Fatalf("resume after the writer closed: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock file left after the run: %v", err)
	}
}
