package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlotCommand(t *testing.T) {
	out := t.TempDir()
	var so, se bytes.Buffer
	if code := run([]string{"plot", "../../tui/testdata/fixture.wtlab", "--out", out, "--format", "svg"}, &so, &se); code != exitOK {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), filepath.Join(out, "table.svg")) {
		t.Fatalf("stdout %q", so.String())
	}
	if _, err := os.Stat(filepath.Join(out, "table.svg")); err != nil {
		t.Fatal(err)
	}
	// One line per figure, "PATH<tab>TITLE", also for a title of two lines (the frame
	// figure's rule): a line that is not a file's broke the listing.
	lines := strings.Split(strings.TrimRight(so.String(), "\n"), "\n")
	for _, l := range lines {
		path, title, ok := strings.Cut(l, "\t")
		if _, err := os.Stat(path); !ok || err != nil || title == "" {
			t.Errorf("listing line %q is not PATH<tab>TITLE of a file", l)
		}
	}
	if !strings.Contains(so.String(), "-frame.svg") {
		t.Errorf("no frame figure (its title has two lines) listed:\n%s", so.String())
	}
	so.Reset()
	se.Reset()
	if code := run([]string{"plot", "../../tui/testdata/fixture.wtlab", "--out", out, "--format", "gif"}, &so, &se); code != exitUsage {
		t.Fatalf("bad format: exit %d, want %d (%s)", code, exitUsage, se.String())
	}
	se.Reset()
	missing := filepath.Join(t.TempDir(), "missing.wtlab")
	if code := run([]string{"plot", missing, "--out", out}, &so, &se); code != exitError {
		t.Fatalf("missing file: exit %d, want %d (%s)", code, exitError, se.String())
	}
	if n := strings.Count(se.String(), missing); n != 1 {
		t.Fatalf("missing file: %q names the path %d times, want once", se.String(), n)
	}
}
