package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"windtunnel/lab/sweep"
	"windtunnel/sessions"
)

// copyFixture copies the dashboard's fixture session to path.
func copyFixture(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile("../../tui/testdata/fixture.wtlab")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// labelledFolder is a runs folder with a session at its top and a compare's folder of one,
// the first tagged through the CLI (windtunnel tag).
func labelledFolder(t *testing.T) (dir, tagged, other string) {
	t.Helper()
	dir = t.TempDir()
	tagged = filepath.Join(dir, "a.wtlab")
	other = filepath.Join(dir, "compare-1", "b.wtlab")
	copyFixture(t, tagged)
	copyFixture(t, other)
	code, out, errs := runCLI("tag", tagged, "lr", "paper", "--name", "baseline", "--note", "first try")
	if code != 0 || !strings.Contains(out, "name baseline · tags lr,paper · note first try") {
		t.Fatalf("tag: exit %d, %q %q", code, out, errs)
	}
	return dir, tagged, other
}

// TestTagAndLs: tag stores labels without touching the records or the configuration; ls
// shows them, filters on them (--where tag=, name=) and gives them in --json; bad labels
// are usage errors.
func TestTagAndLs(t *testing.T) {
	dir, tagged, _ := labelledFolder(t)
	code, out, errs := runCLI("ls", "--dir", dir, "--days", "0", "--where", "tag=lr")
	if code != 0 || !strings.Contains(out, "NAME") || !strings.Contains(out, "baseline") || !strings.Contains(out, "lr,paper") || strings.Contains(out, "b.wtlab") {
		t.Fatalf("ls --where tag=lr: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI("ls", "--dir", dir, "--days", "0", "--where", "tag!=lr")
	if code != 0 || !strings.Contains(out, "b.wtlab") || strings.Contains(out, "a.wtlab") {
		t.Fatalf("ls --where tag!=lr: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("ls", "--dir", dir, "--days", "0", "--where", "name=baseline", "--json")
	var rows []struct {
		Labels sessions.Labels `json:"labels"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0].Labels.Note != "first try" {
		t.Fatalf("ls --json: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI("info", tagged); code != 0 || !strings.Contains(out, "labels    name baseline · tags lr,paper") || !strings.Contains(out, "note      first try") {
		t.Errorf("info: exit %d\n%s", code, out)
	}
	// Removing a tag and renaming; the records and configuration are the fixture's.
	if code, out, errs := runCLI("tag", tagged, "--remove", "paper", "--name", "lr-3e-3"); code != 0 || !strings.Contains(out, "name lr-3e-3 · tags lr ·") {
		t.Fatalf("tag --remove: exit %d, %q %q", code, out, errs)
	}
	a, b := exportScalars(t, tagged), exportScalars(t, "../../tui/testdata/fixture.wtlab")
	if a != b {
		t.Error("tag changed the records")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tag", tagged, "a,b"}, "commas"},
		{[]string{"tag", tagged, "--name", "two\nlines"}, "one line"},
		{[]string{"tag"}, "takes a run"},
		{[]string{"tag", filepath.Join(dir, "none.wtlab"), "x"}, "neither a session file nor a live run"},
		{[]string{"ls", "--where", "tag>x"}, "tag takes"},
	} {
		if code, _, errs := runCLI(c.args...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// exportScalars is a session's scalars as export writes them.
func exportScalars(t *testing.T, path string) string {
	t.Helper()
	code, out, errs := runCLI("export", path, "--format", "csv")
	if code != 0 {
		t.Fatalf("export %s: exit %d, %s", path, code, errs)
	}
	return out
}

// TestReplayFolder: `replay DIR` on a terminal opens the run picker of the folder (its
// runs and ls's columns), / filters it, enter opens the run in the dashboard, q there comes
// back to the picker, and q quits. Without a terminal it says so; a folder beside files
// is a usage error.
func TestReplayFolder(t *testing.T) {
	dir, _, other := labelledFolder(t)
	if code, _, errs := runCLI("replay", dir); code != 2 || !strings.Contains(errs, "needs a terminal") {
		t.Errorf("replay DIR without a terminal: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI("replay", dir, other); code != 2 || !strings.Contains(errs, "is a folder: give one folder") {
		t.Errorf("replay DIR FILE: exit %d, %q", code, errs)
	}
	ch := startDashboard(t, "", false, []string{"replay", dir}, "XDG_CACHE_HOME="+t.TempDir())
	scr := ch.scr
	scr.waitFor(t, "windtunnel replay", 20*time.Second)
	scr.waitFor(t, "BIT ERR (a)", 5*time.Second)
	scr.waitFor(t, "baseline", 5*time.Second)
	ch.press(t, "/")
	scr.waitFor(t, "filter ›", 5*time.Second)
	for _, k := range "tag=lr" {
		ch.press(t, string(k))
	}
	ch.press(t, "\r")
	scr.waitFor(t, "1 of 2", 5*time.Second)
	ch.press(t, "\r")
	scr.waitFor(t, "REPLAY", 20*time.Second)
	n := strings.Count(scr.String(), "1 of 2")
	ch.press(t, "q")
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(scr.String(), "1 of 2") == n {
		if time.Now().After(deadline) {
			t.Fatalf("q in the dashboard did not come back to the picker:\n%q", scr.String()[max(len(scr.String())-1500, 0):])
		}
		time.Sleep(50 * time.Millisecond)
	}
	ch.press(t, "q")
	select {
	case <-ch.done:
		if ch.err != nil {
			t.Errorf("exit: %v", ch.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("q in the picker did not quit")
	}
}

// TestReplaySweepFolder: `replay DIR` on a sweep's folder (its sweep.json read by
// sweep.Read) shows each swept flag as a column with each point's value, beside bit error
// (a), (b) and accuracy.
func TestReplaySweepFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	g := sweep.Grid{Axes: []sweep.Axis{{Flag: "task", Values: []string{"bijection"}}, {Flag: "lr", Values: []string{"0.003", "0.0007"}}}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	m, err := sweep.Prepare(dir, g, pts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		copyFixture(t, m.SessionPath(p))
	}
	ch := startDashboard(t, "", false, []string{"replay", dir}, "XDG_CACHE_HOME="+t.TempDir())
	scr := ch.scr
	scr.waitFor(t, "ERR (b)", 20*time.Second)
	scr.waitFor(t, "0.0007", 5*time.Second)
	scr.waitFor(t, "0.003 ", 5*time.Second)
	ch.press(t, "q")
	select {
	case <-ch.done:
		if ch.err != nil {
			t.Errorf("exit: %v", ch.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("q in the picker did not quit")
	}
}
