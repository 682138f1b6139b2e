package look

import (
	"math"
	"strconv"
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
}

// TestChartRoundTicks draws charts over the ranges the dashboard shows (steps 1–600, bit
// error 0–2.3, a zoomed 0.98–1.01, a log axis over two decades, the manifold's −3.1–2.7)
// and reads their axis labels back off the screen: every one a multiple of a 1, 2 or 5 ×
// 10^k spacing (not 1 91 181 270 360, 33 54 76 or 0.987), at least two per axis, whole on
// an integer axis, and on a log axis at 1-2-5 × 10^k.
func TestChartRoundTicks(t *testing.T) {
	for _, c := range []struct {
		name   string
		chart  Chart
		w, h   int
		xs, ys string // the labels expected, when given
	}{
		{"steps and bits", Chart{XR: Span{1, 600}, YR: Span{0, 2.3}, XInt: true}, 60, 14, "100 200 300 400 500 600", "0.0 0.5 1.0 1.5 2.0"},
		{"zoomed", Chart{XR: Span{25, 589}, YR: Span{0.98, 1.013}, XInt: true}, 40, 12, "", ""},
		{"narrow", Chart{XR: Span{33, 76}, YR: Span{0, 1}, XInt: true}, 24, 8, "", ""},
		{"log", Chart{XR: Span{1, 600}, YR: Span{-2, 0.3}, XInt: true, YLog: true}, 50, 16, "", ""},
		{"manifold", Chart{XR: Span{-3.1, 2.7}, YR: Span{-1.4, 1.9}}, 40, 12, "", ""},
	} {
		v := ansi.Strip(c.chart.Draw(c.w, c.h))
		rows := strings.Split(v, "\n")
		xs := strings.Fields(strings.ReplaceAll(rows[len(rows)-1], c.chart.XTitle, ""))
		var ys []string
		for _, r := range rows[:len(rows)-2] {
			if f := strings.Fields(strings.Split(strings.Split(r, "│")[0], "┤")[0]); len(f) == 1 {
				ys = append(ys, f[0])
			}
		}
		for axis, labels := range map[string][]string{"x": xs, "y": ys} {
			if len(labels) < 2 {
				t.Errorf("%s: %s labels %q:\n%s", c.name, axis, labels, v)
			}
			log := axis == "y" && c.chart.YLog
			var vals []float64
			for _, l := range labels {
				f, err := strconv.ParseFloat(l, 64)
				if err != nil {
					t.Fatalf("%s: %s label %q:\n%s", c.name, axis, l, v)
				}
				vals = append(vals, f)
				if log && !round125(f) {
					t.Errorf("%s: log label %s is not 1, 2 or 5 × 10^k", c.name, l)
				}
				if axis == "x" && c.chart.XInt && strings.Contains(l, ".") {
					t.Errorf("%s: integer axis label %s", c.name, l)
				}
			}
			if !log && len(vals) >= 2 {
				step := math.Abs(vals[1] - vals[0])
				for i, f := range vals {
					if !round125(step) || math.Abs(f/step-math.Round(f/step)) > 1e-6 || (i > 0 && math.Abs(math.Abs(f-vals[i-1])/step-math.Round(math.Abs(f-vals[i-1])/step)) > 1e-6) {
						t.Errorf("%s: %s labels %q are not multiples of a 1-2-5 spacing:\n%s", c.name, axis, labels, v)
						break
					}
				}
			}
		}
		if c.xs != "" && strings.Join(xs, " ") != c.xs {
			t.Errorf("%s: x labels %q, want %q:\n%s", c.name, xs, c.xs, v)
		}
		if c.ys != "" {
			// y labels read top to bottom
			for i, j := 0, len(ys)-1; i < j; i, j = i+1, j-1 {
				ys[i], ys[j] = ys[j], ys[i]
			}
			if strings.Join(ys, " ") != c.ys {
				t.Errorf("%s: y labels %q, want %q:\n%s", c.name, ys, c.ys, v)
			}
		}
	}
}

// round125 reports whether v is 1, 2 or 5 × 10^k.
func round125(v float64) bool {
	v = math.Abs(v)
	if v == 0 {
		return false
	}
	m := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9))
	return math.Abs(m-1) < 1e-6 || math.Abs(m-2) < 1e-6 || math.Abs(m-5) < 1e-6
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

// TestEMA checks the smoothing against TensorBoard's rule computed by hand: weight 0.6 on
// 1, 2, NaN, 3 is 1, (0.24+0.8)/0.64·…, the NaN kept as a gap and left out of the average;
// weight 0 leaves the values as they are.
func TestEMA(t *testing.T) {
	got := EMA([]float64{1, 2, math.NaN(), 3}, 0.6)
	// s1 = 0.4·1 = 0.4, /0.4 = 1; s2 = 0.24+0.8 = 1.04, /(1−0.36) = 1.625;
	// s3 = 0.624+1.2 = 1.824, /(1−0.216) = 2.3265306…
	want := []float64{1, 1.625, math.NaN(), 1.824 / 0.784}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-12) {
			t.Errorf("EMA %v, want %v", got, want)
			break
		}
	}
	if raw := EMA([]float64{1, 2}, 0); raw[0] != 1 || raw[1] != 2 {
		t.Errorf("weight 0: %v", raw)
	}
	if SmoothLabel(0) != "raw" || SmoothLabel(1) != "EMA 0.6" || SmoothStep(0, -1) != 0 || SmoothStep(len(Smoothings)-1, 1) != len(Smoothings)-1 {
		t.Error("smoothing steps")
	}
}
