package overlay

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/tui"
)

// legendLine returns the view's line holding label, or fails.
func legendLine(t *testing.T, v, label string) string {
	t.Helper()
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, label) {
			return l
		}
	}
	t.Fatalf("no line with %q:\n%s", label, v)
	return ""
}

// cursorColumn is the column of the cursor line in the chart (-1: none).
func cursorColumn(v string) int {
	for _, l := range strings.Split(v, "\n")[4:] {
		if i := strings.IndexRune(l, cursorGlyph); i >= 0 {
			return len([]rune(l[:i]))
		}
	}
	return -1
}

// TestOverlayKeys drives Update with key messages: scrubbing moves the cursor line and the
// legend's values, m cycles the metric, ? and h show the help, tab highlights a series.
func TestOverlayKeys(t *testing.T) {
	o := sizedOverlay(New(seedFeeds(), nil, tui.Options{}), 120, 40)
	view := func(o Model) string { return overlayView(t, o, 120, 40) }
	v := view(o)
	mustContain(t, v, "step 600 · newest")
	if c := cursorColumn(v); c >= 0 {
		t.Errorf("a cursor line while following (column %d)", c)
	}

	// Scrubbing: the steps are the union of the cadences (every 25 and every 30 steps).
	for _, c := range []struct {
		keys    []string
		step    string // the cursor's step
		tf, mlp string // the legend values' steps: the MLP seeds evaluate every 25 steps only
		scrub   bool
	}{
		{[]string{"left"}, "step 575", "@575", "@575", true},
		{[]string{"left"}, "step 570", "@570", "@550", true},
		{[]string{","}, "step 550", "@550", "@550", true},
		{[]string{"right", "."}, "step 575", "@575", "@575", true},
		{[]string{"home"}, "step 25", "@25", "@25", true},
		{[]string{"left"}, "step 25", "@25", "@25", true}, // stays at the first step
		{[]string{">"}, "step 90", "@90", "@75", true},    // a tenth of 25–600 is 57 steps: the first step ≥ 82
		{[]string{"shift+right"}, "step 150", "@150", "@150", true},
		{[]string{"<"}, "step 90", "@90", "@75", true},
		{[]string{"end"}, "step 600", "@600", "@600", false},
		{[]string{"shift+left", "esc"}, "step 600", "@600", "@600", false}, // esc: follow again
		{[]string{"typed:<<"}, "step 480", "@480", "@475", true},           // fast typing: two big steps
	} {
		o = pressOverlay(t, o, c.keys...)
		v = view(o)
		state := c.step + " · newest"
		if c.scrub {
			state = c.step + " ┊ · scrubbing (end: follow)"
		}
		mustContain(t, v, state)
		if l := legendLine(t, v, "transformer (3 seeds)"); !strings.Contains(l, c.tf+" ") {
			t.Errorf("%v: transformer legend %q lacks %s", c.keys, l, c.tf)
		}
		if l := legendLine(t, v, "mlp (3 seeds)"); !strings.Contains(l, c.mlp+" ") {
			t.Errorf("%v: mlp legend %q lacks %s", c.keys, l, c.mlp)
		}
		if got := cursorColumn(v) >= 0; got != c.scrub {
			t.Errorf("%v: cursor line shown %v, want %v", c.keys, got, c.scrub)
		}
	}
	// The cursor line moves right with the step.
	at := func(keys ...string) int { return cursorColumn(view(pressOverlay(t, o, keys...))) }
	if a, b := at("home"), at("home", ">"); !(a >= 0 && b > a) {
		t.Errorf("cursor columns %d then %d", a, b)
	}

	// m cycles the metric: title, legend, the loss, all three and back to (a).
	for _, want := range []string{"bit error (b) over steps", "KL(p*‖q) over steps", "training loss over steps",
		"bit error (a), (b) and KL over steps", "bit error (a) over steps"} {
		o = pressOverlay(t, o, "m")
		v = view(o)
		mustContain(t, v, want)
	}
	mustContain(t, view(pressOverlay(t, o, "m")), "(b) ", "bits")
	mustContain(t, view(pressOverlay(t, o, "m", "m")), "KL ")
	mustContain(t, view(pressOverlay(t, o, "l")), "log (l)", "bits (log scale)")

	// ? and h open the help; ?, h and esc close it; keys still work under it.
	for _, keys := range [][]string{{"?"}, {"h"}} {
		v = view(pressOverlay(t, o, keys...))
		mustContain(t, v, "Keys — ? or esc closes", "Global", "Scrubber", "Chart", "metric (a)/(b)/KL/loss", "highlight next run", "newest step, follow",
			"x axis: step / wall time", "smooth more (EMA)")
	}
	for _, keys := range [][]string{{"?", "?"}, {"h", "h"}, {"?", "esc"}} {
		if v := view(pressOverlay(t, o, keys...)); strings.Contains(v, "Keys —") {
			t.Errorf("%v leaves the help open", keys)
		}
	}
	mustContain(t, view(pressOverlay(t, o, "?", "m", "?")), "bit error (b) over steps")

	// tab highlights the next series, then none; shift+tab goes back.
	for _, c := range []struct {
		keys []string
		sel  string // the highlighted label, "" for none
	}{
		{[]string{"tab"}, "transformer (3 seeds)"},
		{[]string{"tab", "tab"}, "mlp (3 seeds)"},
		{[]string{"tab", "tab", "tab"}, ""},
		{[]string{"shift+tab"}, "mlp (3 seeds)"},
	} {
		v := view(pressOverlay(t, o, c.keys...))
		n := strings.Count(v, "▶ ")
		if c.sel == "" && n != 0 || c.sel != "" && (n != 1 || !strings.Contains(legendLine(t, v, c.sel), "▶ ")) {
			t.Errorf("%v: highlight wrong:\n%s", c.keys, v)
		}
	}

	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := o.Update(keyMsg(t, k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s does not quit", k)
		}
	}
}

// TestOverlaySizes checks that every state of the 3 seeds × 2 models overlay is exactly the
// terminal's size, down to 1×1 (under -short at the least laid-out size, the largest, one
// below the least and 1×1).
func TestOverlaySizes(t *testing.T) {
	o := New(seedFeeds(), nil, tui.Options{})
	sizes := [][2]int{{120, 40}, {80, 24}, {60, 20}, {40, 12}, {20, 5}, {1, 1}, {200, 60}}
	if testing.Short() {
		sizes = [][2]int{{80, 24}, {200, 60}, {40, 12}, {1, 1}}
	}
	for _, keys := range [][]string{nil, {"?"}, {"<", "tab"}, {"l", "m"}, {"m", "m", "m"}, {"m", "m", "m", "m"}, {"s", "z", "<"}, {"m", "m", "m", "m", "s", "l"}, {"x", "m", "m", "m", "+"}} {
		for _, sz := range sizes {
			overlayView(t, pressOverlay(t, sizedOverlay(o, sz[0], sz[1]), keys...), sz[0], sz[1])
		}
	}
	if o := New(seedFeeds(), nil, tui.Options{Width: 100, Height: 30}); o.width != 100 || o.height != 30 {
		t.Errorf("Options size: %d×%d", o.width, o.height)
	}
}
