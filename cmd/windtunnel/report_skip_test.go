//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"windtunnel/sessions"
)

// TestReportSkipsBadSessions: a folder holding one finished session beside a file that is
// not SQLite, a truncated copy of the session, a FIFO and an unfinished session (issue
// 44, item 5). Before, report wrote nothing and exited 1 on the first bad file (its figures
// read the folder again and failed where the table had skipped); now, as compare --from,
// it writes the report and its figures from the finished session, and names every other
// file, with why, on stderr and under "Sessions left out".
func TestReportSkipsBadSessions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	steps := quickMLPSteps(t)
	good := filepath.Join(dir, "a-good.wtlab")
	writeQuickMLP(t, good, sessions.Record{Step: steps, State: sessions.Done, Eval: &sessions.Eval{BitErrorPosition: 1.1073, BitErrorSample: 1.1073, Accuracy: 0.5}})
	writeQuickMLP(t, filepath.Join(dir, "e-running.wtlab"), sessions.Record{Step: 5, State: sessions.Training, Eval: &sessions.Eval{BitErrorPosition: 2}})
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{"b-garbage.wtlab": "not an SQLite file", "c-truncated.wtlab": "truncated", "d-fifo.wtlab": "FIFO", "e-running.wtlab": "not finished"}
	if err := os.WriteFile(filepath.Join(dir, "b-garbage.wtlab"), []byte(strings.Repeat("garbage\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c-truncated.wtlab"), b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "d-fifo.wtlab"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rep")
	code, stdout, errs := runChild(t, time.Minute, "report", dir, "--out", out)
	if code != 0 || !strings.Contains(stdout, "report.md") {
		t.Fatalf("report: exit %d, stdout %q\n%s", code, stdout, errs)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	left := string(md)[strings.Index(string(md), "## Sessions left out"):]
	for name, why := range bad {
		line := ""
		for _, l := range strings.Split(errs, "\n") {
			if strings.Contains(l, name) {
				line = l
			}
		}
		if !strings.HasPrefix(line, "report: skipped") || !strings.Contains(line, why) || !strings.Contains(left, name) {
			t.Errorf("%s: stderr line %q, want report: skipped … %s; listed under Sessions left out: %v", name, line, why, strings.Contains(left, name))
		}
	}
	if !strings.Contains(string(md), "a-good.wtlab") {
		t.Errorf("the report does not use the finished session:\n%s", md)
	}
	if figs, _ := filepath.Glob(filepath.Join(out, "fig", "*.png")); len(figs) == 0 {
		t.Error("no figures drawn")
	}
}
