package figures

import (
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// checkLabels checks that every labelled tick is in [lo, hi] and that its label reads back
// as its value (to a relative 1e-9: no "0.30000000000000004").
func checkLabels(t *testing.T, name string, ts []plot.Tick, lo, hi float64) {
	t.Helper()
	for _, tk := range ts {
		if tk.Label == "" {
			continue
		}
		v, err := strconv.ParseFloat(tk.Label, 64)
		if err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(v)) {
			t.Errorf("%s: label %q for value %g", name, tk.Label, tk.Value)
		}
		if tk.Value < lo*(1-1e-9) || tk.Value > hi*(1+1e-9) {
			t.Errorf("%s: label %q outside [%g, %g]", name, tk.Label, lo, hi)
		}
	}
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi   float64
		min      int      // labelled ticks at least
		includes []string // labels that must be there
	}{
		{0.01, 0.2, 3, []string{"0.01", "0.02", "0.05", "0.1", "0.2"}}, // gonum's LogTicks: 0.01 and 0.1 only
		{0.03, 3, 3, []string{"0.05", "0.1", "0.2", "0.5", "1", "2"}},
		{0.12, 1.4, 3, []string{"0.2", "0.3", "0.5", "1"}},
		{1.05, 1.3, 3, nil}, // less than one step of 1..9: round linear labels
		{0.78, 1.56, 3, []string{"1.0", "1.2", "1.4"}},
		{1e-4, 5, 2, []string{"0.0001", "0.001", "0.01", "0.1", "1"}},
		{1e-4, 1e6, 2, nil},
	} {
		ts := logTicks{}.Ticks(tc.lo, tc.hi)
		got := labelled(ts)
		name := strconv.FormatFloat(tc.lo, 'g', -1, 64) + ".." + strconv.FormatFloat(tc.hi, 'g', -1, 64)
		if len(got) < tc.min {
			t.Errorf("%s: labels %q, want at least %d", name, got, tc.min)
		}
		for _, w := range tc.includes {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("%s: labels %q, no %q", name, got, w)
			}
		}
		if len(got) > 12 {
			t.Errorf("%s: %d labels crowd the axis: %q", name, len(got), got)
		}
		checkLabels(t, name, ts, tc.lo, tc.hi)
	}
	if ts := (logTicks{}).Ticks(0, 1); ts != nil {
		t.Errorf("range from 0 on a log axis: %v, want none", ts)
	}
}

func TestLinearTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi  float64
		n       int
		integer bool
		want    []string
	}{
		{1, 19, 8, true, []string{"2", "4", "6", "8", "10", "12", "14", "16", "18"}}, // positions; not 2.50 10.00 17.50
		{25, 300, 7, true, []string{"50", "100", "150", "200", "250", "300"}},        // steps; gonum's default gives 100 200 300
		{0, 3, 7, true, []string{"0", "1", "2", "3"}},                                // layers: no 0.5
		{0, 1, 6, false, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},         // one number of decimals on an axis
		{-0.03, 0.11, 6, false, []string{"-0.02", "0.00", "0.02", "0.04", "0.06", "0.08", "0.10"}},
	} {
		ts := linearTicks{n: tc.n, integer: tc.integer}.Ticks(tc.lo, tc.hi)
		got := labelled(ts)
		if len(got) != len(tc.want) {
			t.Errorf("[%g, %g] n=%d integer=%v: labels %q, want %q", tc.lo, tc.hi, tc.n, tc.integer, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("[%g, %g]: labels %q, want %q", tc.lo, tc.hi, got, tc.want)
				break
			}
		}
		checkLabels(t, "linear", ts, tc.lo, tc.hi)
		if tc.integer {
			for _, tk := range ts {
				if tk.Value != math.Round(tk.Value) {
					t.Errorf("[%g, %g]: integer axis has a tick at %g", tc.lo, tc.hi, tk.Value)
				}
			}
		}
	}
}

// TestLegendFindsRoom: a curve rising from bottom left to top right leaves the top left
// empty, where the legend goes; a plot whose data fill every corner sends it outside.
func TestLegendFindsRoom(t *testing.T) {
	w, h := vg.Points(480), vg.Points(300)
	c := draw.New(vgimg.New(w, h))
	mk := func(pts plotter.XYs) *plot.Plot {
		p := newPlot("t", "x", "y")
		l, err := plotter.NewLine(pts)
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		p.Legend.Add("a curve with a long name", l)
		return p
	}
	p := mk(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	size := p.Legend.Rectangle(c).Size()
	p.Legend = plot.NewLegend()
	r, left, ok := freeCorner(c, p, p.DataCanvas(c), size)
	dc := p.DataCanvas(c)
	if !ok || !left || r.Max.Y < dc.Max.Y-vg.Points(10) || r.Min.X > dc.Min.X+vg.Points(10) {
		t.Errorf("rising curve: legend at %+v (left %v, ok %v), want the top left of %+v", r, left, ok, dc.Rectangle)
	}
	full := plotter.XYs{}
	for i := range 41 {
		x := float64(i) / 40
		full = append(full, plotter.XY{X: x, Y: 0}, plotter.XY{X: x, Y: 1}, plotter.XY{X: x + 0.0125, Y: 1}, plotter.XY{X: x + 0.0125, Y: 0})
	}
	p = mk(full)
	size = p.Legend.Rectangle(c).Size()
	p.Legend = plot.NewLegend()
	if _, _, ok := freeCorner(c, p, p.DataCanvas(c), size); ok {
		t.Error("data fill the plot, yet a corner was found free")
	}
	drawPlot(c, mk(full)) // falls back to a column at the right without panicking
}
