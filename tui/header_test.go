package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
)

// headerSizes run from the least laid-out size to 200×62: each layout's first size and the
// one below it, and the sizes the grid is used at (160×48, 160×50, 200×60, 200×62).
var headerSizes = [][2]int{{80, 24}, {81, 25}, {100, 30}, {119, 35}, {119, 48}, {120, 36}, {120, 40}, {140, 44},
	{159, 47}, {159, 48}, {160, 47}, {160, 48}, {160, 50}, {200, 60}, {200, 62}}

// headerSmall are the sizes below the least that TestHeaderAtEverySize checks the notice at.
var headerSmall = [][2]int{{79, 24}, {80, 23}, {40, 12}, {1, 1}}

// shortHeaderSizes are the sizes of headerSizes and headerSmall checked under -short: the
// least and the largest, each layout's first size and the odd size below it, and below the
// least size one short and one narrow by a cell and 1×1.
var shortHeaderSizes = [][2]int{{80, 24}, {81, 25}, {119, 35}, {120, 36}, {159, 47}, {160, 48}, {200, 62}, {79, 24}, {80, 23}, {1, 1}}

// TestHeaderAtEverySize checks, at every size of headerSizes (under -short, of
// shortHeaderSizes), fresh and after a resize from
// 80×24 and from 240×70, with the help open and closed, live and replayed,
// that the frame is exactly the terminal's size (every line exactly its width) and that its
// first two lines are the run summary: the LIVE or REPLAY line, then the step (live) or the
// state at the step (replay) with the bit errors; only the help of the tabs mode covers
// them (so that every key fits at 80×24). Below 80×24 the frame is the notice, at the
// terminal's size too.
func TestHeaderAtEverySize(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	for _, f := range []struct {
		name       string
		feed       sessions.Feed
		badge, two string
	}{{"live", l, "● LIVE training", "step 450/600 · "}, {"replay", openFixture(t), "■ REPLAY step 600 of 600", "done at this step · "}} {
		starts := map[string]func(w, h int) Model{
			"fresh":       func(w, h int) Model { return sized(New(f.feed, Options{}), w, h) },
			"from 80×24":  func(w, h int) Model { return sized(sized(New(f.feed, Options{}), 80, 24), w, h) },
			"from 240×70": func(w, h int) Model { return sized(sized(New(f.feed, Options{}), 240, 70), w, h) },
		}
		for start, open := range starts {
			for _, sz := range sweep(t, slices.Concat(headerSizes, headerSmall), shortHeaderSizes) {
				w, h := sz[0], sz[1]
				m := open(w, h)
				for _, help := range []bool{false, true} {
					if help {
						m, _ = press(t, m, "?")
					}
					name := fmt.Sprintf("%s %s %d×%d help %v", f.name, start, w, h, help)
					lines := strings.Split(plain(m), "\n")
					if len(lines) != h {
						t.Fatalf("%s: %d lines", name, len(lines))
					}
					for i, line := range lines {
						if n := ansi.StringWidth(line); n != w {
							t.Fatalf("%s: line %d is %d cells wide: %q", name, i, n, line)
						}
					}
					if w < minWidth || h < minHeight {
						if !strings.Contains(plain(m), "too small") && w >= 20 {
							t.Errorf("%s: no notice:\n%s", name, plain(m))
						}
						continue
					}
					if help && modeFor(w, h) == modeTabs {
						continue // the help covers the tabs mode's summary too, so every key fits at 80×24
					}
					if !strings.HasPrefix(lines[0], f.badge) || !strings.HasPrefix(lines[1], f.two) || !strings.Contains(lines[1], "bit error (a) ") {
						t.Errorf("%s: the first lines are not the run summary:\n%s\n%s", name, lines[0], lines[1])
					}
				}
			}
		}
	}
}
