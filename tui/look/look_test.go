package look

import (
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// TestRanges checks the fitted axis ranges: a band at 0.9–1.1 fills the axis (ZoomRange),
// a curve falling towards 0 keeps 0, and close log values are not stretched to half a
// decade (FitLogRange).
func TestRanges(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for _, c := range []struct {
		name   string
		got    Span
		lo, hi float64
	}{
		{"band at 0.9–1.1", ZoomRange([]float64{0.9, 1.0, 1.1}), 0.89, 1.11},
		{"falling to 0.05", ZoomRange([]float64{2, 1, 0.05}), 0, 2.0975},
		{"one value", ZoomRange([]float64{1}), 0.945, 1.055},
		{"barely differing", ZoomRange([]float64{0.8114, 0.8132}), 0.767574, 0.857026},
		{"none", ZoomRange([]float64{math.NaN()}), 0, 1},
		{"log, close", FitLogRange([]float64{0, 0.1}), -0.02, 0.12},
		{"log, decades", FitLogRange([]float64{-2, 0}), -2.1, 0.1},
	} {
		if !near(c.got.Lo, c.lo) || !near(c.got.Hi, c.hi) {
			t.Errorf("%s: %v, want [%v, %v]", c.name, c.got, c.lo, c.hi)
		}
	}
	for _, c := range []struct {
		name string
		f    func(int, float64) string
		v    float64
		want string
	}{
		{"zoomed", RangeLabels(Span{0.9, 1.2}), 1.04, "1.04"},
		{"from 0", RangeLabels(Span{0, 2.5}), 1.04, "1"},
		{"log, close", PowRangeLabels(Span{-0.05, 0.1}), math.Log10(1.04), "1.04"},
		{"log, decades", PowRangeLabels(Span{-2, 0.5}), math.Log10(0.0871), "0.087"},
	} {
		if got := c.f(0, c.v); got != c.want {
			t.Errorf("%s: %v reads %q, want %q", c.name, c.v, got, c.want)
		}
	}
}

// TestCutLeft checks that a path keeps its end.
func TestCutLeft(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"/a/b/run.wtlab", 20, "/a/b/run.wtlab"},
		{"/home/someone/runs/run.wtlab", 12, "…s/run.wtlab"},
	} {
		if got := CutLeft(c.s, c.w); got != c.want || ansi.StringWidth(got) > c.w {
			t.Errorf("CutLeft(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

// TestFullHelpText checks a legend's placement in the full help: below the keys when it
// fits there, in a column of its own when one fits beside, else as many of its paragraphs
// as fit below, in order; never wider than the help.
func TestFullHelpText(t *testing.T) {
	st := NewStyles(nil)
	keys := HelpGroup{Title: "Keys", Bindings: []key.Binding{
		key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "first key")),
		key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "second key")),
	}}
	legend := HelpGroup{Title: "Legend", Text: []string{"one: the first paragraph", "two: the second paragraph", "three"}}
	for _, c := range []struct {
		name       string
		w, h       int
		want, not  []string
		legendLine int // the line the legend's title is on
	}{
		{"below", 40, 10, []string{"one:", "two:", "three"}, nil, 4},
		{"beside", 60, 5, []string{"one:", "two:", "three"}, nil, 0},
		{"cut to what fits", 24, 7, []string{"one:"}, []string{"three"}, 4},
	} {
		v := FullHelp([]HelpGroup{keys, legend}, c.w, c.h, st)
		lines := strings.Split(v, "\n")
		if len(lines) != c.h {
			t.Fatalf("%s: %d lines", c.name, len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) != c.w {
				t.Errorf("%s: line %q is not %d wide", c.name, l, c.w)
			}
		}
		for _, w := range c.want {
			if !strings.Contains(v, w) {
				t.Errorf("%s: lacks %q:\n%s", c.name, w, v)
			}
		}
		for _, n := range c.not {
			if strings.Contains(v, n) {
				t.Errorf("%s: has %q:\n%s", c.name, n, v)
			}
		}
		if !strings.Contains(lines[c.legendLine], "Legend") {
			t.Errorf("%s: the legend is not on line %d:\n%s", c.name, c.legendLine, v)
		}
	}
}
