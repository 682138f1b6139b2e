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
