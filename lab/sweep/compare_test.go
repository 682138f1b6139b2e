package sweep

import (
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestParseList: entries trimmed, empty ones and repeats dropped; an unknown entry or an
// empty list refused naming the flag.
func TestParseList(t *testing.T) {
	allowed := []string{"bijection", "hmm", "recall"}
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{"hmm", []string{"hmm"}, ""},
		{" recall, bijection ,,recall", []string{"recall", "bijection"}, ""},
		{"hmm,lstm", nil, `--tasks "lstm": want a comma list of bijection, hmm, recall`},
		{" , ", nil, "--tasks is empty: want a comma list of bijection, hmm, recall"},
		{"", nil, "--tasks is empty"},
	} {
		got, err := ParseList("tasks", c.in, allowed)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseList(%q) = %v, %v; want error %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseList(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestCompareGrid: the axes task, model, preset, [steps,] seed 1..N, and the points they
// give, task slowest, each with run's flags.
func TestCompareGrid(t *testing.T) {
	for _, c := range []struct {
		steps, seeds int
		axes         []string
		first, last  []string
		n            int
	}{
		{0, 2, []string{"task", "model", "preset", "seed"},
			[]string{"--task=bijection", "--model=transformer", "--preset=quick", "--seed=1"},
			[]string{"--task=hmm", "--model=lstm", "--preset=quick", "--seed=2"}, 8},
		{400, 1, []string{"task", "model", "preset", "steps", "seed"},
			[]string{"--task=bijection", "--model=transformer", "--preset=quick", "--steps=400", "--seed=1"},
			[]string{"--task=hmm", "--model=lstm", "--preset=quick", "--steps=400", "--seed=1"}, 4},
	} {
		g := CompareGrid([]string{"bijection", "hmm"}, []string{"transformer", "lstm"}, "quick", c.steps, c.seeds)
		var axes []string
		for _, a := range g.Axes {
			axes = append(axes, a.Flag)
		}
		pts, err := g.Points()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(axes, c.axes) || len(pts) != c.n ||
			!reflect.DeepEqual(pts[0].Args, c.first) || !reflect.DeepEqual(pts[len(pts)-1].Args, c.last) {
			t.Errorf("steps %d seeds %d: axes %v, %d points, first %v, last %v; want %v, %d, %v, %v",
				c.steps, c.seeds, axes, len(pts), pts[0].Args, pts[len(pts)-1].Args, c.axes, c.n, c.first, c.last)
		}
	}
}

// TestScores: a finished point is scored (its last evaluation's bit error), a stopped one,
// one without a session and one that is no session are named with why they are not.
func TestScores(t *testing.T) {
	m, pts := seedSweep(t, 4)
	writeSession(t, m.SessionPath(pts[0]), 100, 100, sessions.Done)
	writeSession(t, m.SessionPath(pts[1]), 100, 40, sessions.Stopped)
	// pts[2] has no session; pts[3]'s is not one.
	if err := os.WriteFile(m.SessionPath(pts[3]), []byte("not a session"), 0o600); err != nil {
		t.Fatal(err)
	}
	runs, unscored := m.Scores()
	if len(runs) != 1 || runs[0].Session != m.SessionPath(pts[0]) || runs[0].Scores.BitErrorPosition != 0.1 || runs[0].Steps != 100 {
		t.Errorf("runs %+v, want the first point's, bit error (a) 0.1 at step 100", runs)
	}
	want := []string{pts[1].Name + " not scored: not finished (stopped at step 40 of 100)", pts[2].Name + " not scored: not trained yet", pts[3].Name + " not scored: "}
	if len(unscored) != len(want) {
		t.Fatalf("unscored %q, want %d lines", unscored, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(unscored[i], w) {
			t.Errorf("unscored[%d] = %q, want it to start %q", i, unscored[i], w)
		}
	}
}

// seedSweep prepares a sweep of seeds 1..n, 100 steps each, in a new folder.
func seedSweep(t *testing.T, n int) (*Manifest, []Point) {
	t.Helper()
	g := Grid{Axes: []Axis{{Flag: "seed"}}}
	for i := 1; i <= n; i++ {
		g.Axes[0].Values = append(g.Axes[0].Values, strconv.Itoa(i))
	}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	for i := range pts {
		pts[i].Steps = 100
	}
	m, err := Prepare(t.TempDir(), g, pts)
	if err != nil {
		t.Fatal(err)
	}
	return m, pts
}
