package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/sessions"
)

// TestView compares the ANSI-stripped screen with testdata/TestView/*.golden (regenerate
// with `go test ./tui -update`): a live run three quarters in, following, and a replay
// scrubbed to the middle of its span, at 80×24 (tabs), 120×40 (split), 160×48 and 200×60
// (grid).
func TestView(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {160, 48}, {200, 60}} {
		w, h := sz[0], sz[1]
		t.Run(fmt.Sprintf("live_%dx%d", w, h), func(t *testing.T) {
			l, _ := liveFixture(t, liveCut(t))
			golden.RequireEqual(t, checkedView(t, sized(New(l, Options{}), w, h), w, h))
		})
		t.Run(fmt.Sprintf("replay_mid_%dx%d", w, h), func(t *testing.T) {
			r := openFixture(t)
			first, last := feedSpan(t, r)
			m := typeStep(t, sized(New(r, Options{}), w, h), (first+last)/2)
			golden.RequireEqual(t, checkedView(t, m, w, h))
		})
	}
	// At 80×24 each pane in turn, the help and the log scale.
	r := openFixture(t)
	for _, title := range []string{"Run", "Attention focus", "Ablation"} {
		t.Run("replay_80x24_"+strings.ReplaceAll(title, " ", "_"), func(t *testing.T) {
			m := focusOn(t, sized(New(r, Options{}), 80, 24), title)
			golden.RequireEqual(t, checkedView(t, m, 80, 24))
		})
	}
	t.Run("replay_80x24_help", func(t *testing.T) {
		m, _ := press(t, sized(New(r, Options{}), 80, 24), "?")
		golden.RequireEqual(t, checkedView(t, m, 80, 24))
	})
	t.Run("replay_80x24_log", func(t *testing.T) {
		m, _ := press(t, sized(New(r, Options{}), 80, 24), "y")
		golden.RequireEqual(t, checkedView(t, m, 80, 24))
	})
	// The geometry panes at 80×24, at the end and scrubbed to the middle, with their toggles.
	first, last := feedSpan(t, r)
	for _, c := range []struct {
		title string
		keys  []string
	}{
		{"Key orthogonality", nil},
		{"Key orthogonality", []string{"e"}},
		{"Value manifold", nil},
		{"Value manifold", []string{"a"}},
		{"Frame-precision", nil},
		{"Frame-precision", []string{"f"}},
	} {
		name := strings.ReplaceAll(c.title, " ", "_")
		if len(c.keys) > 0 {
			name += "_" + strings.Join(c.keys, "")
		}
		t.Run("replay_80x24_"+name, func(t *testing.T) {
			m, _ := press(t, focusOn(t, sized(New(r, Options{}), 80, 24), c.title), c.keys...)
			golden.RequireEqual(t, checkedView(t, m, 80, 24))
		})
		if len(c.keys) == 0 {
			t.Run("replay_mid_80x24_"+name, func(t *testing.T) {
				m := typeStep(t, focusOn(t, sized(New(r, Options{}), 80, 24), c.title), (first+last)/2)
				golden.RequireEqual(t, checkedView(t, m, 80, 24))
			})
		}
	}
	// The geometry page of the grid, live and scrubbed to the middle.
	t.Run("live_160x48_geometry", func(t *testing.T) {
		l, _ := liveFixture(t, liveCut(t))
		m, _ := press(t, sized(New(l, Options{}), 160, 48), "]")
		golden.RequireEqual(t, checkedView(t, m, 160, 48))
	})
	// The optimiser page: loss, learning rate and gradient norm, and the system pane.
	t.Run("replay_mid_120x40_optimiser", func(t *testing.T) {
		m := typeStep(t, sized(New(r, Options{}), 120, 40), (first+last)/2)
		m, _ = press(t, m, "]", "]")
		golden.RequireEqual(t, checkedView(t, m, 120, 40))
	})
	t.Run("replay_80x24_Loss", func(t *testing.T) {
		m, _ := press(t, sized(New(r, Options{}), 80, 24), "8")
		golden.RequireEqual(t, checkedView(t, m, 80, 24))
	})
	t.Run("replay_mid_160x48_geometry", func(t *testing.T) {
		m := typeStep(t, sized(New(r, Options{}), 160, 48), (first+last)/2)
		m, _ = press(t, m, "]", "e", "f")
		golden.RequireEqual(t, checkedView(t, m, 160, 48))
	})
}

// checkedView returns the stripped view after checking that it is exactly w×h.
func checkedView(t *testing.T, m Model, w, h int) string {
	t.Helper()
	v := plain(m)
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Errorf("%d×%d: view has %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("%d×%d: line %d is %d cells wide: %q", w, h, i, n, l)
		}
	}
	return v
}

// TestViewSizes renders every pane, the help and the input line at several terminal sizes
// (under -short, a sample of them), for a live and a replayed feed, and checks the screen is exactly the terminal's size
// (TestFramesFit checks more sizes and that nothing is cut mid-word).
func TestViewSizes(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	feeds := map[string]sessions.Feed{"live": l, "replay": openFixture(t)}
	sizes := [][2]int{{80, 24}, {100, 30}, {160, 48}, {81, 25}, {120, 40}, {200, 60}, {60, 20}, {40, 12}, {20, 5}, {1, 1}}
	// Under -short: the least, an odd size, the grid's first and the largest, and two below the least.
	short := [][2]int{{80, 24}, {81, 25}, {160, 48}, {200, 60}, {40, 12}, {1, 1}}
	for name, f := range feeds {
		for _, sz := range sweep(t, sizes, short) {
			w, h := sz[0], sz[1]
			m := sized(New(f, Options{}), w, h)
			for i := 0; i < len(m.panes); i++ {
				checkedView(t, m, w, h)
				m, _ = press(t, m, "tab")
			}
			m = focusOn(t, m, "Ablation")
			for _, keys := range [][]string{{"y"}, {"home"}, {"down", "right", "right"}, {"?"}, {"esc", "]"}, {"e", "f", "a"},
				{"tab", "down", "down"}, {"["}, {"g", "1"}} {
				m, _ = press(t, m, keys...)
				checkedView(t, m, w, h)
			}
			if t.Failed() {
				t.Fatalf("%s at %d×%d", name, w, h)
			}
		}
	}
}

// TestViewNoColorGlyphs checks that the attention heatmap, the key-orthogonality bars, the
// manifold scatter and the frame curves carry glyphs and numbers, so they read with
// NO_COLOR (the test profile has no colour at all).
func TestViewNoColorGlyphs(t *testing.T) {
	r := openFixture(t)
	for _, c := range []struct{ title, glyphs string }{
		{"Attention focus", "░▒▓█"},
		{"Key orthogonality", "█"},
		{"Key orthogonality", "░"},
		{"Value manifold", "●"},
		{"Value manifold", "○"},
		{"Value manifold", "∘"},
		{"Value manifold", "·"},
		{"Frame-precision", "●"},
		{"Frame-precision", "•"},
	} {
		m := focusOn(t, sized(New(r, Options{}), 80, 24), c.title)
		v := plain(m)
		if !strings.ContainsAny(v, c.glyphs) {
			t.Errorf("no %q glyphs in the %s pane:\n%s", c.glyphs, c.title, v)
		}
		if m.View() != v {
			t.Error("the Ascii profile still emits escape sequences")
		}
	}
}
