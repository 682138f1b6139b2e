package runpicker

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/sessions"
	"windtunnel/sessions/index"
)

// root is the folder the fixture's runs are under.
const root = "/data/runs"

// fixtureRuns are six runs of a runs folder: two at its top, a compare's three and a
// sweep's point, one live, some labelled.
func fixtureRuns() []index.Run {
	f := func(x float64) *float64 { return &x }
	run := func(state, task, model, path string, step, steps int, be *float64) index.Run {
		return index.Run{State: state, Task: task, Model: model, Step: step, Steps: steps, BitError: be,
			Path: filepath.Join(root, path)}
	}
	rs := []index.Run{
		run("running", "bijection", "transformer", "20261128-181500-bijection-transformer.wtlab", 420, 1000, f(0.8123)),
		run("done", "hmm", "transformer", "20261128-170000-hmm-transformer.wtlab", 600, 600, f(0.0412)),
		run("done", "bijection", "mamba", "compare-20261127-090000/bijection-mamba-s1.wtlab", 600, 600, f(0.2311)),
		run("done", "bijection", "lstm", "compare-20261127-090000/bijection-lstm-s1.wtlab", 600, 600, f(0.5120)),
		run("stopped", "bijection", "transformer", "compare-20261127-090000/bijection-transformer-s1.wtlab", 300, 600, f(0.0190)),
		run("interrupted", "hmm", "lstm", "sweep-lr/lr=0.003-seed=1.wtlab", 0, 600, nil),
	}
	rs[0].Pid = 4242
	rs[0].Labels = sessions.Labels{Name: "long-run", Tags: []string{"paper"}}
	rs[1].Labels = sessions.Labels{Name: "hmm-base", Tags: []string{"lr", "base"}}
	rs[5].Labels = sessions.Labels{Tags: []string{"lr"}}
	return rs
}

// picker returns the picker at w×h with the fixture listed.
func picker(t *testing.T, w, h int) Model {
	t.Helper()
	list := func(context.Context) ([]index.Run, error) { return fixtureRuns(), nil }
	m := New(context.Background(), list, Options{Title: "windtunnel replay runs", Dir: root, Width: w, Height: h})
	m, _ = m.Update(RunsMsg{Runs: fixtureRuns()})
	return m
}

// view is the ANSI-stripped screen, checked to be exactly w×h cells.
func view(t *testing.T, m Model, w, h int) string {
	t.Helper()
	v := ansi.Strip(m.View())
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Errorf("%d×%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Errorf("%d×%d: line %d is %d cells: %q", w, h, i, n, l)
		}
	}
	return v
}

func press(m Model, keys ...string) Model {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "up":
			msg = tea.KeyMsg{Type: tea.KeyUp}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		m, _ = m.Update(msg)
	}
	return m
}

// typeText types s into the filter, one key a rune.
func typeText(m Model, s string) Model {
	for _, r := range s {
		m = press(m, string(r))
	}
	return m
}

// TestPickerView compares the ANSI-stripped screens with testdata/TestPickerView/*.golden
// (regenerate with `go test ./tui/runpicker -update`): the list, the cursor moved, a
// filter kept, a filter being typed and an unknown key in it, at 80×24 and 120×40; and
// every screen at smaller and larger sizes is exactly the terminal's size.
func TestPickerView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		w, h := sz[0], sz[1]
		t.Run(fmt.Sprintf("list_%dx%d", w, h), func(t *testing.T) {
			golden.RequireEqual(t, view(t, picker(t, w, h), w, h))
		})
		t.Run(fmt.Sprintf("sorted_moved_%dx%d", w, h), func(t *testing.T) {
			golden.RequireEqual(t, view(t, press(picker(t, w, h), "s", "s", "s", "s", "s", "down", "down"), w, h))
		})
		t.Run(fmt.Sprintf("filtered_%dx%d", w, h), func(t *testing.T) {
			m := press(typeText(press(picker(t, w, h), "/"), "tag=lr"), "enter")
			golden.RequireEqual(t, view(t, m, w, h))
		})
		t.Run(fmt.Sprintf("typing_bad_%dx%d", w, h), func(t *testing.T) {
			golden.RequireEqual(t, view(t, typeText(press(picker(t, w, h), "/"), "tsk=hmm"), w, h))
		})
	}
	for _, sz := range [][2]int{{40, 10}, {60, 12}, {100, 30}, {200, 60}, {20, 4}} {
		m := picker(t, sz[0], sz[1])
		for _, k := range []string{"", "down", "s", "/", "x"} {
			if k != "" {
				m = press(m, k)
			}
			view(t, m, sz[0], sz[1])
		}
	}
}

// TestPickerKeys: ↓/↑ move the cursor, s cycles the orders and S reverses them, the
// filter applies as it is typed (conditions and words), esc drops it, and enter sends
// ChosenMsg with the run under the cursor.
func TestPickerKeys(t *testing.T) {
	base := func(rs []index.Run) string {
		var out []string
		for _, r := range rs {
			out = append(out, strings.TrimSuffix(filepath.Base(r.Path), ".wtlab"))
		}
		return strings.Join(out, " ")
	}
	m := picker(t, 100, 30)
	if r, _ := m.Selected(); r.State != "running" {
		t.Fatalf("cursor starts on %+v", r)
	}
	m = press(m, "down", "down", "up")
	if r, _ := m.Selected(); r.Task != "hmm" || r.State != "done" {
		t.Errorf("after ↓↓↑ the cursor is on %s", r.Path)
	}
	// s: state, task, model, step, bit_error; the cursor stays on its run.
	m = press(m, "s", "s", "s", "s", "s")
	if got := base(m.Shown()); got != "bijection-transformer-s1 20261128-170000-hmm-transformer bijection-mamba-s1 bijection-lstm-s1 20261128-181500-bijection-transformer lr=0.003-seed=1" {
		t.Errorf("by bit error: %s", got)
	}
	if r, _ := m.Selected(); r.Task != "hmm" || r.State != "done" {
		t.Errorf("sorting moved the cursor to %s", r.Path)
	}
	m = press(m, "S")
	if got := base(m.Shown()); !strings.HasPrefix(got, "20261128-181500-bijection-transformer bijection-lstm-s1") {
		t.Errorf("reversed: %s", got)
	}
	m = press(picker(t, 100, 30), "/")
	for _, c := range []struct{ typed, want string }{
		{"tag=lr", "20261128-170000-hmm-transformer lr=0.003-seed=1"},
		{" task=hmm", "20261128-170000-hmm-transformer lr=0.003-seed=1"},
		{" base", "20261128-170000-hmm-transformer"},
	} {
		m = typeText(m, c.typed)
		if got := base(m.Shown()); got != c.want {
			t.Errorf("filter %q keeps %s, want %s", m.input.Value(), got, c.want)
		}
	}
	m = press(picker(t, 100, 30), "/")
	m = typeText(m, "compare bit_error<0.3")
	if got := base(m.Shown()); got != "bijection-mamba-s1 bijection-transformer-s1" {
		t.Errorf("words and a condition keep %s", got)
	}
	m = typeText(m, " nokey=1") // unreadable: named, the last good filter kept
	if v := view(t, m, 100, 30); !strings.Contains(v, "filter: nokey: unknown key") {
		t.Errorf("a bad filter is not named:\n%s", v)
	}
	m = press(m, "esc")
	if len(m.Shown()) != 6 || m.editing {
		t.Errorf("esc left %d shown, editing %v", len(m.Shown()), m.editing)
	}
	m = press(m, "down", "down", "down")
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter sent nothing")
	}
	if ch, ok := cmd().(ChosenMsg); !ok || filepath.Base(ch.Run.Path) != "bijection-lstm-s1.wtlab" {
		t.Errorf("enter chose %+v", ch)
	}
	if _, cmd := press(m, "q").Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")}); cmd == nil {
		t.Error("q does not quit")
	}
}

func TestGroup(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/data/runs/a.wtlab", ""},
		{"/data/runs/sweep-lr/a.wtlab", "sweep-lr"},
		{"/data/runs/compare-1/x/a.wtlab", "compare-1/x"},
		{"/elsewhere/a.wtlab", ""},
	} {
		if got := Group(root, c.path); got != c.want {
			t.Errorf("Group(%s) = %q, want %q", c.path, got, c.want)
		}
	}
	if !Under(root, "/data/runs/x/a.wtlab") || Under(root, "/data/runsx/a.wtlab") || Under(root, "/data/a.wtlab") {
		t.Error("Under")
	}
}
