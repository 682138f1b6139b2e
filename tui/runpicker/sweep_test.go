package runpicker

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/sessions/index"
)

// sweepDir is the sweep folder of the fixture's points.
const sweepDir = root + "/sweep-20261128-120000"

// sweepRuns are a sweep's six points (lr × seed; one still running, one without an
// evaluation) and the settings its manifest gives them, plus a session it did not make.
func sweepRuns() ([]index.Run, index.Settings) {
	f := func(x float64) *float64 { return &x }
	set := index.Settings{Flags: []string{"lr", "seed"}, Values: map[string]map[string]string{}}
	var rs []index.Run
	for i, p := range []struct {
		lr, seed, state string
		step            int
		a, b, acc       float64
	}{
		{"0.001", "1", "done", 600, 0.1832, 0.2410, 0.512},
		{"0.001", "2", "done", 600, 0.1790, 0.2355, 0.515},
		{"0.003", "1", "done", 600, 0.0412, 0.0630, 0.598},
		{"0.003", "2", "running", 350, 0.0951, 0.1204, 0.571},
		{"0.01", "1", "done", 600, 0.0605, 0.0877, 0.590},
		{"0.01", "2", "interrupted", 0, -1, -1, -1},
	} {
		path := filepath.Join(sweepDir, fmt.Sprintf("lr=%s-seed=%s.wtlab", p.lr, p.seed))
		r := index.Run{State: p.state, Task: "hmm", Model: "lstm", Step: p.step, Steps: 600, Path: path}
		if p.a >= 0 {
			r.BitError = f(p.a)
			r.Metrics = &index.Metrics{BitErrorPosition: f(p.a), BitErrorSample: f(p.b), Accuracy: f(p.acc)}
		}
		if i == 3 {
			r.Pid = 5150
		}
		rs = append(rs, r)
		set.Values[path] = map[string]string{"lr": p.lr, "seed": p.seed}
	}
	rs = append(rs, index.Run{State: "done", Task: "hmm", Model: "lstm", Step: 100, Steps: 100,
		Path: filepath.Join(sweepDir, "by-hand.wtlab")})
	return rs, set
}

// sweepPicker is the picker of the sweep's folder at w×h, its settings given.
func sweepPicker(t *testing.T, w, h int) Model {
	t.Helper()
	rs, set := sweepRuns()
	list := func(context.Context) ([]index.Run, error) { return rs, nil }
	m := New(context.Background(), list, Options{Title: "windtunnel replay " + sweepDir, Dir: sweepDir, Width: w, Height: h, Settings: set})
	m, _ = m.Update(RunsMsg{Runs: rs})
	return m
}

// TestSweepPickerView compares the screens of a sweep's folder with
// testdata/TestSweepPickerView/*.golden (regenerate with `go test ./tui/runpicker
// -update`): each swept flag a column beside bit error (a), (b) and accuracy, as listed
// and sorted by lr, at 80×24 and 120×40; every screen at other sizes exactly their size.
func TestSweepPickerView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		w, h := sz[0], sz[1]
		t.Run(fmt.Sprintf("list_%dx%d", w, h), func(t *testing.T) {
			golden.RequireEqual(t, view(t, sweepPicker(t, w, h), w, h))
		})
		t.Run(fmt.Sprintf("by_lr_%dx%d", w, h), func(t *testing.T) {
			m := sweepPicker(t, w, h)
			for m.sorts[m.sortAt] != "lr" {
				m = press(m, "s")
			}
			golden.RequireEqual(t, view(t, m, w, h))
		})
	}
	for _, sz := range [][2]int{{40, 10}, {60, 12}, {100, 30}, {200, 60}, {20, 4}} {
		m := sweepPicker(t, sz[0], sz[1])
		for _, k := range []string{"", "down", "s", "S", "/", "x"} {
			if k != "" {
				m = press(m, k)
			}
			view(t, m, sz[0], sz[1])
		}
	}
}

// TestSweepPickerSort: s reaches each swept flag, bit error (b) and accuracy after ls's
// orders; a flag sorts by its values as numbers (0.01 after 0.003), the session the sweep
// did not make last either way, and S reverses it.
func TestSweepPickerSort(t *testing.T) {
	m := sweepPicker(t, 120, 40)
	want := append(append([]string{}, SortKeys...), "lr", "seed", "bit_error_sample", "accuracy")
	if strings.Join(m.sorts, " ") != strings.Join(want, " ") {
		t.Fatalf("orders %v, want %v", m.sorts, want)
	}
	names := func(m Model) string {
		var out []string
		for _, r := range m.Shown() {
			out = append(out, strings.TrimSuffix(filepath.Base(r.Path), ".wtlab"))
		}
		return strings.Join(out, " ")
	}
	for m.sorts[m.sortAt] != "lr" {
		m = press(m, "s")
	}
	if got := names(m); got != "lr=0.001-seed=1 lr=0.001-seed=2 lr=0.003-seed=1 lr=0.003-seed=2 lr=0.01-seed=1 lr=0.01-seed=2 by-hand" {
		t.Errorf("by lr: %s", got)
	}
	m = press(m, "S")
	if got := names(m); got != "lr=0.01-seed=1 lr=0.01-seed=2 lr=0.003-seed=1 lr=0.003-seed=2 lr=0.001-seed=1 lr=0.001-seed=2 by-hand" {
		t.Errorf("by lr reversed: %s", got)
	}
	m = press(m, "S", "s", "s", "s")
	if m.sorts[m.sortAt] != "accuracy" {
		t.Fatalf("order %s", m.sorts[m.sortAt])
	}
	if got := names(m); !strings.HasPrefix(got, "lr=0.001-seed=1 lr=0.001-seed=2 lr=0.003-seed=2 lr=0.01-seed=1 lr=0.003-seed=1") {
		t.Errorf("by accuracy: %s", got)
	}
}

// TestSweepPickerManyFlags: seven swept flags at 80×24 keep each value whole (the titles
// are cut, the metrics beside bit error (a) left out), and every size stays its size.
func TestSweepPickerManyFlags(t *testing.T) {
	rs, set := sweepRuns()
	set.Flags = []string{"lr", "seed", "transformer-layers", "width", "batch", "warmup-steps", "eval-every"}
	for p := range set.Values {
		for _, f := range set.Flags[2:] {
			set.Values[p][f] = "123456"
		}
	}
	list := func(context.Context) ([]index.Run, error) { return rs, nil }
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {40, 10}} {
		m := New(context.Background(), list, Options{Title: "t", Dir: sweepDir, Width: sz[0], Height: sz[1], Settings: set})
		m, _ = m.Update(RunsMsg{Runs: rs})
		v := view(t, m, sz[0], sz[1])
		if sz[0] == 80 && (!strings.Contains(v, "0.003 2    123456 123456") || strings.Contains(v, "0.0…")) {
			t.Errorf("80×24: a value cut:\n%s", v)
		}
	}
}
