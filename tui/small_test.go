package tui

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// helpScreens opens the full help and turns its pages with ? until it closes, returning
// each page's screen (exactly w×h).
func helpScreens(t *testing.T, m Model, w, h int) []string {
	t.Helper()
	var out []string
	m, _ = press(t, m, "?")
	for range 5 {
		v := checkedView(t, m, w, h)
		if !strings.Contains(v, "▶ Keys") {
			return out
		}
		out = append(out, v)
		m, _ = press(t, m, "?")
	}
	t.Fatalf("? does not close the help after 5 pages")
	return nil
}

// TestHelpSmallScreen: at 80×24 (live, replay) the help keeps the run summary in view, and
// its pages (? turns them) show every group whole between them: every key's description and
// every paragraph of the legend, no line cut with "…".
func TestHelpSmallScreen(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	for name, f := range map[string]sessions.Feed{"live": l, "replay": openFixture(t)} {
		m := sized(New(f, Options{}), 80, 24)
		head := strings.Join(strings.Split(plain(m), "\n")[:headerH], "\n")
		pages := helpScreens(t, m, 80, 24)
		all := strings.Join(pages, "\n")
		for i, p := range pages {
			if got := strings.Join(strings.Split(p, "\n")[:headerH], "\n"); got != head {
				t.Errorf("%s: help page %d hides the run summary:\n%s", name, i+1, p)
			}
			for _, l := range strings.Split(p, "\n") {
				if strings.HasSuffix(strings.TrimRight(strings.Trim(l, "┃ "), " "), "…") {
					t.Errorf("%s: help page %d cuts a line: %q", name, i+1, l)
				}
			}
		}
		for _, g := range m.helpGroups() {
			for _, b := range g.Bindings {
				if b.Enabled() && !strings.Contains(all, b.Help().Desc) {
					t.Errorf("%s: no page shows %q", name, b.Help().Desc)
				}
			}
			for _, para := range g.Text {
				if first := strings.Fields(para)[0] + " " + strings.Fields(para)[1]; !strings.Contains(all, first) {
					t.Errorf("%s: no page shows the legend's %q", name, para)
				}
			}
		}
	}
}

// TestReplayOffersNoActions: a replay, and a live run once it has ended, show no hint of
// the keys that act on a run (footer, help pages, the ablation pane's legend): pressed,
// they only answer that the run cannot be acted on.
func TestReplayOffersNoActions(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	ended := sized(New(l, Options{}), 80, 24)
	l.End()
	nm, _ := ended.Update(feedMsg{changed: true, closed: true})
	for name, m := range map[string]Model{"replay": sized(New(openFixture(t), Options{}), 80, 24), "ended": nm.(Model)} {
		var screens []string
		for _, k := range []string{"1", "2", "3", "4", "5", "6", "7"} {
			mm, _ := press(t, m, k)
			screens = append(screens, checkedView(t, mm, 80, 24))
		}
		screens = append(screens, helpScreens(t, m, 80, 24)...)
		all := strings.Join(screens, "\n")
		for _, s := range actionTexts {
			if strings.Contains(all, s) {
				t.Errorf("%s: offers %q", name, s)
			}
		}
	}
}

// TestKeysNarrowLegend: where the Keys pane is too narrow for its bars (the split layout's
// left column at 120×40 holds numbers only) its legend names no bar glyph; where the bars
// show (80×24) it names them.
func TestKeysNarrowLegend(t *testing.T) {
	for _, c := range []struct {
		w, h int
		bars bool
	}{{120, 40, false}, {80, 24, true}} {
		m, _ := press(t, sized(New(openFixture(t), Options{}), c.w, c.h), "5")
		v := m.panes[4].View()
		drawn := false // a layer's row (L0, L1, …) holds a bar
		for _, r := range strings.Split(v, "\n") {
			drawn = drawn || (strings.HasPrefix(r, "L") && strings.ContainsAny(r, "█▏▎▍▌▋▊▉"))
		}
		if drawn != c.bars {
			t.Fatalf("%d×%d: bars drawn %v, want %v:\n%s", c.w, c.h, drawn, c.bars, v)
		}
		if named := strings.Contains(v, "█ keys"); named != c.bars {
			t.Errorf("%d×%d: bars drawn %v, legend names them %v:\n%s", c.w, c.h, drawn, named, v)
		}
	}
}

// TestDashboardRoundTicks: the bit-error chart's step axis at 80×24 is labelled at round
// values (100 200 300 400, not 1 91 181 270 360).
func TestDashboardRoundTicks(t *testing.T) {
	l, _ := liveFixture(t, liveCut(t))
	v := plain(sized(New(l, Options{}), 80, 24))
	num := regexp.MustCompile(`^\d+$`)
	for _, row := range strings.Split(v, "\n") {
		i := strings.Index(row, "step ")
		if i < 0 || !strings.HasPrefix(row, "┃") {
			continue
		}
		var vals []float64
		for _, f := range strings.Fields(strings.Trim(row[:i], "┃")) {
			if num.MatchString(f) {
				x, _ := strconv.ParseFloat(f, 64)
				vals = append(vals, x)
			}
		}
		if len(vals) < 2 {
			t.Fatalf("step labels %v in %q", vals, row)
		}
		step := vals[1] - vals[0]
		m := step / math.Pow(10, math.Floor(math.Log10(step)))
		for _, x := range vals {
			if r := x / step; r != math.Round(r) || (m != 1 && m != 2 && m != 5) {
				t.Fatalf("step labels %v are not round:\n%s", vals, v)
			}
		}
		return
	}
	t.Fatalf("no step axis:\n%s", v)
}
