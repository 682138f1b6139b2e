package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
)

// frameSizes are the terminal sizes every frame is checked at: the least (80×24), each
// layout's first size and the one below it (tabs, split from 120×36, grid from 160×48),
// 120×40, 159×48 and larger screens.
var frameSizes = [][2]int{{80, 24}, {100, 30}, {119, 35}, {120, 36}, {120, 40}, {140, 44}, {159, 48}, {160, 48}, {200, 60}, {240, 70}}

// smallSizes are below the least size: the screen shows the notice instead of panes.
var smallSizes = [][2]int{{79, 24}, {80, 23}, {60, 20}, {40, 12}, {20, 5}, {1, 1}}

// shortFrameSizes are the sizes of frameSizes and smallSizes checked under -short: the
// least and the largest, each layout's first size and the odd size below it, one short and
// one narrow size by one cell, the least that shows the notice and 1×1.
var shortFrameSizes = [][2]int{{80, 24}, {119, 35}, {120, 36}, {159, 48}, {160, 48}, {240, 70}, {79, 24}, {80, 23}, {20, 5}, {1, 1}}

// wholePhrases are legends, titles and help entries: each shows whole or not at all, never
// cut after one of its words.
var wholePhrases = []string{
	"bit error over steps", "entropy by position", "• (a)", "∘ (b)", "⊙ both", "● model", "· Bayes",
	"◉ both", "no context", "scaled to [0, 1]", "● frame: attention distance to", "• bit error",
	"∘ 1−|ρ(PC1,H)|", "░ random (same count, dim)", "░ random Gaussian (same count, dim)",
	"┆ random level (left), at init (right)", "×: ratio to random", "entropy, bits:", "█ focused, 0 bits",
	"terminal too small:", "?/h help", "q quit", "tab next pane", "y/l log Y", "e per-head keys",
	"a PC2/PC3 axis", "f per-layer frame", "←/, step back", "→/. step forward", "g go to step", "p pause/resume",
	"] [ switch pages", "Keys — ?, h or esc closes", "mean |cos| between token keys", "frame vs precision",
	"value manifold", "entropy of attention rows",
}

// checkFrame checks one screen: exactly w×h cells, every "…" after a whole word (a space
// before it), and no phrase of wholePhrases cut after one of its words.
func checkFrame(t *testing.T, name, v string, w, h int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d", name, len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n != w {
			t.Errorf("%s: line %d is %d cells, want %d: %q", name, i, n, w, l)
		}
		rs := []rune(l)
		for j, r := range rs {
			if r == '…' && j > 0 && rs[j-1] != ' ' {
				t.Errorf("%s: a word cut at line %d: %q", name, i, l)
			}
		}
	}
	for _, p := range wholePhrases {
		words := strings.Fields(p)
		k0 := 1
		if len([]rune(words[0])) == 1 {
			k0 = 2 // a glyph alone ("· …") says nothing
		}
		for k := k0; k < len(words); k++ {
			if part := strings.Join(words[:k], " ") + " …"; strings.Contains(v, part) {
				t.Errorf("%s: %q cut to %q:\n%s", name, p, part, v)
			}
		}
	}
}

// TestFramesFit renders every pane, the help, the toggles, a scrubbed step, the other page
// and the quit dialog, live and replayed, at every size of frameSizes (under -short, of
// shortFrameSizes), and checks each screen with checkFrame; below the least size it checks
// the notice.
func TestFramesFit(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	feeds := []struct {
		name string
		feed sessions.Feed
	}{{"live", l}, {"replay", openFixture(t)}}
	steps := [][]string{{"tab"}, {"tab"}, {"tab"}, {"tab"}, {"tab"}, {"tab"}, {"tab"}, {"?"}, {"esc", "y"}, {"h"},
		{"h", "e", "a", "f"}, {"]"}, {"tab"}, {"tab"}, {"left"}, {"<"}, {"1"}, {"g", "3"}, {"esc", "q"}}
	for _, f := range feeds {
		for _, sz := range sweep(t, slices.Concat(frameSizes, smallSizes), shortFrameSizes) {
			w, h := sz[0], sz[1]
			m := sized(New(f.feed, Options{}), w, h)
			name := fmt.Sprintf("%s %d×%d", f.name, w, h)
			for _, keys := range steps {
				m, _ = press(t, m, keys...)
				v := m.View()
				checkFrame(t, fmt.Sprintf("%s %v on %s", name, keys, m.Focused()), v, w, h)
				if small := w < minWidth || h < minHeight; small && !m.quit.open && w >= 20 {
					want := fmt.Sprintf("terminal too small: need 80×24, have %d×%d", w, h)
					if got := strings.Join(strings.Fields(v), " "); got != want {
						t.Errorf("%s: the notice reads %q, want %q", name, got, want)
					}
				}
			}
			if t.Failed() {
				t.Fatalf("%s: see above", name)
			}
		}
	}
}

// TestLayoutModes checks the layout chosen at each size: tabs from 80×24, three panes
// under the run summary from 120×36, the grid from 160×48, the notice below 80×24.
func TestLayoutModes(t *testing.T) {
	for _, c := range []struct {
		w, h int
		mode layoutMode
	}{
		{79, 24, modeSmall}, {80, 23, modeSmall}, {80, 24, modeTabs}, {119, 48, modeTabs}, {200, 35, modeTabs},
		{120, 36, modeSplit}, {120, 40, modeSplit}, {159, 48, modeSplit}, {200, 47, modeSplit},
		{160, 48, modeGrid}, {200, 60, modeGrid},
	} {
		if got := modeFor(c.w, c.h); got != c.mode {
			t.Errorf("%d×%d: mode %d, want %d", c.w, c.h, got, c.mode)
		}
	}
	// In split mode the page's three panes show, the run pane on the left while focused.
	r := openFixture(t)
	m := sized(New(r, Options{}), 120, 40)
	mustContain(t, plain(m), "▶ Bit error", "─ Ablation ", "─ Attention focus ", "page [1 Training]", "bijection")
	m, _ = press(t, m, "1")
	mustContain(t, plain(m), "▶ Run", "─ Bit error ", "─ Attention focus ")
	m, _ = press(t, m, "]")
	mustContain(t, plain(m), "▶ Key orthogonality", "─ Value manifold ", "─ Frame-precision ", "[2 Geometry]")
}

// TestScrubberWidth checks that the scrubber's bar keeps its width whatever the step and
// mode: following (or at the end), scrubbing, at the first step.
func TestScrubberWidth(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	for _, f := range []sessions.Feed{l, openFixture(t)} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}, {160, 48}} {
			m := sized(New(f, Options{}), sz[0], sz[1])
			want := -1
			for _, keys := range [][]string{nil, {"left"}, {"home"}, {"right"}, {"<"}, {"g", "7", "enter"}, {"end"}} {
				m, _ = press(t, m, keys...)
				lines := strings.Split(plain(m), "\n")
				line := lines[len(lines)-2]
				n := strings.Count(line, "━") + strings.Count(line, "●") + strings.Count(line, "─")
				if want < 0 {
					want = n
				}
				if n != want || ansi.StringWidth(line) != sz[0] {
					t.Errorf("%d×%d after %v: bar of %d cells, want %d: %q", sz[0], sz[1], keys, n, want, line)
				}
			}
			if want < 30 {
				t.Errorf("%d×%d: a bar of %d cells", sz[0], sz[1], want)
			}
		}
	}
}
