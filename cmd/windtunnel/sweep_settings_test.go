package main

import (
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/lab/sweep"
)

// TestSweepSettings: status --settings of a prepared sweep lists each point's swept value
// (none trained yet: missing, no scores); --plot without a point that has the metric says
// so; an unknown sort key or figure format is a usage error naming the flag.
func TestSweepSettings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	g := sweep.Grid{Axes: []sweep.Axis{{Flag: "task", Values: []string{"bijection"}}, {Flag: "lr", Values: []string{"1e-3", "1e-2"}}}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	m, err := sweep.Prepare(dir, g, pts)
	if err == nil {
		err = m.Save()
	}
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("sweep", "status", dir, "--settings", "--sort", "lr", "--reverse")
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 3 || strings.Join(strings.Fields(lines[0]), " ") != "point state lr (a) (b) name" ||
		strings.Join(strings.Fields(lines[1]), " ") != "1 missing 1e-2 - - bijection-lr=1e-2" {
		t.Fatalf("settings: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runCLI("sweep", "status", dir, "--plot", filepath.Join(t.TempDir(), "x.png")); code == 0 || !strings.Contains(errs, "0 points with the metric") {
		t.Errorf("plot of no scores: exit %d %q", code, errs)
	}
	for _, c := range [][]string{{"--sort", "depth"}, {"--plot", "x.gif"}} {
		if code, _, errs := runCLI(append([]string{"sweep", "status", dir}, c...)...); code != exitUsage || !strings.Contains(errs, c[0]) {
			t.Errorf("%v: exit %d %q", c, code, errs)
		}
	}
}
