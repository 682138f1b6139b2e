package overlay

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"windtunnel/sessions"
	"windtunnel/tui"
)

// panelAxes finds the charts in a view: for each x axis (a └ and the ─ after it), its
// column, its length, and the columns of the cursor ┊ in the rows above it, down to the
// axis above (stacked charts) — relative to the axis' corner.
type panelAxis struct {
	row, col, length int
	cursor           []int
}

func panelAxes(v string) []panelAxis {
	rows := strings.Split(v, "\n")
	var axes []panelAxis
	for r, line := range rows {
		rs := []rune(line)
		for c, ch := range rs {
			if ch != '└' {
				continue
			}
			n := 0
			for c+1+n < len(rs) && rs[c+1+n] == '─' {
				n++
			}
			axes = append(axes, panelAxis{row: r, col: c, length: n})
		}
	}
	first := 0 // the charts start under the axis-title line
	for r, line := range rows {
		if strings.HasPrefix(line, "bits") {
			first = r + 1
			break
		}
	}
	for i := range axes {
		a := &axes[i]
		top := first
		for _, b := range axes {
			if b.row < a.row && b.col == a.col {
				top = max(top, b.row+1)
			}
		}
		seen := map[int]bool{}
		for r := top; r < a.row; r++ {
			for c, ch := range []rune(rows[r]) {
				if ch == cursorGlyph && c > a.col && c <= a.col+a.length && !seen[c-a.col] {
					seen[c-a.col] = true
					a.cursor = append(a.cursor, c-a.col)
				}
			}
		}
		sort.Ints(a.cursor)
	}
	return axes
}

// TestOverlayAllMetricsFit is `replay A B C` (three seeds of one configuration) and the
// 3 × 2 seed feeds with m to the three metrics, s for the seeds and the cursor scrubbed
// back, at 80×24, 120×40 and 160×48: there is room for the three charts; every series'
// legend line keeps its verdict (nothing cut with "…"); the charts share their x axis (each
// axis as long, the cursor in the same column of each); and each seed of a group is drawn
// with its own glyph, named in the legend.
func TestOverlayAllMetricsFit(t *testing.T) {
	feeds := map[string]func() []sessions.Feed{
		"3seeds":  func() []sessions.Feed { return seedFeeds()[:3] },
		"2groups": seedFeeds,
	}
	for _, name := range []string{"3seeds", "2groups"} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}, {160, 48}} {
			w, h := sz[0], sz[1]
			t.Run(fmt.Sprintf("%s_%dx%d", name, w, h), func(t *testing.T) {
				o := pressOverlay(t, sizedOverlay(New(feeds[name](), nil, tui.Options{}), w, h), "m", "m", "m", "m", "s", "<", "<", "<")
				v := overlayView(t, o, w, h)
				if strings.Contains(v, "no room") {
					t.Fatalf("no room for the charts:\n%s", v)
				}
				mustContain(t, v, "bit error (a)", "bit error (b)", "KL(p*‖q)", "passing 3/3")
				if name == "2groups" {
					mustContain(t, v, "not yet 0/3")
				}
				for _, l := range strings.Split(v, "\n") {
					if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
						t.Errorf("a line is cut: %q\n%s", l, v)
					}
				}
				axes := panelAxes(v)
				if len(axes) != 3 {
					t.Fatalf("%d charts, want 3:\n%s", len(axes), v)
				}
				for _, a := range axes[1:] {
					if a.length != axes[0].length || fmt.Sprint(a.cursor) != fmt.Sprint(axes[0].cursor) || len(a.cursor) != 1 {
						t.Errorf("charts do not line up: axes %+v\n%s", axes, v)
						break
					}
				}
				// Seed 2 is the middle of its group, under the mean's line where the chart is
				// small: the first and last seeds' glyphs show, and the legend names all three.
				body := strings.Join(chartRows(t, v), "\n")
				for k, g := range seedGlyphs[:3] {
					if !strings.ContainsRune(body, g) && k != 1 {
						t.Errorf("seed %d's glyph %c is not in the charts:\n%s", k+1, g, v)
					}
					if !strings.Contains(v, fmt.Sprintf("%c seed %d", g, k+1)) {
						t.Errorf("the legend does not name seed %d's glyph %c:\n%s", k+1, g, v)
					}
				}
				if w == 80 {
					golden.RequireEqual(t, v)
				}
			})
		}
	}
}
