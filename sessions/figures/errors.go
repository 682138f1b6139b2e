package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// errorsFigure is bit error (a), (b) and KL vs step on a log axis, mean ± sd over the
// group's seeds, with the pass threshold and, for a bijection, the context-free level.
func errorsFigure(g Group) (figure, bool) {
	metrics := []struct {
		name string
		get  func(*sessions.Eval) float64
	}{
		{"bit error (a)", func(e *sessions.Eval) float64 { return e.BitErrorPosition }},
		{"bit error (b)", func(e *sessions.Eval) float64 { return e.BitErrorSample }},
		{"KL (bits)", func(e *sessions.Eval) float64 { return e.KLBits }},
	}
	title := fmt.Sprintf("%s: bit error and KL vs step (%s)", heading(g), seedsLabel(g))
	p := newPlot(title, "step", "bits (log)")
	integerX(p, 7)
	var curves []plotter.XYs
	// (a) first, solid and widest, (b) dashed over it: where the two are equal (a model
	// that sees no context) both still show.
	for i, m := range metrics {
		series := make([][][2]float64, 0, len(g.Runs))
		for _, r := range g.Runs {
			s := make([][2]float64, 0, len(r.Evals))
			for _, e := range r.Evals {
				s = append(s, [2]float64{float64(e.Step), m.get(e.Eval)})
			}
			series = append(series, s)
		}
		b := meanBand(series)
		if len(b.x) == 0 {
			continue
		}
		name := m.name
		if b.seeds > 1 {
			name += " mean ± sd"
		}
		if err := addBand(p, b, i, name, true); err != nil {
			return figure{}, false
		}
		curves = append(curves, meanCurve(b))
	}
	if len(curves) == 0 {
		return figure{}, false
	}
	// The range is the data's, at least a factor of two (so a flat curve's noise is not
	// magnified), taking in the pass line and the context-free level where they are near
	// (within a factor of two of the data): a line farther off is named at the edge it
	// lies beyond instead of squeezing the curves into a strip. Labels go where the
	// curves leave room.
	lo, hi := p.Y.Min, p.Y.Max
	var refs []*refLine
	if g.Runs[0].Config.Task != "recall" {
		r := hline(p, derived.PassBits, color.Black, fmt.Sprintf("pass %.2f bits (a)", derived.PassBits))
		r.note = true
		if derived.PassBits >= lo/2 {
			p.Y.Min = math.Min(p.Y.Min, derived.PassBits/1.2)
		}
		refs = append(refs, r)
	}
	if cf := contextFree(g.Runs[0]); !math.IsNaN(cf) {
		r := hline(p, cf, color.Gray{Y: 110}, fmt.Sprintf("context-free %.2f bits", cf))
		r.note = true
		if cf <= hi*2 {
			p.Y.Max = math.Max(p.Y.Max, cf*1.1)
		}
		refs = append(refs, r)
	}
	logAxis(p)
	if f := p.Y.Max / p.Y.Min; f < 2 {
		mid := math.Sqrt(p.Y.Max * p.Y.Min)
		p.Y.Min, p.Y.Max = mid/math.Sqrt2, mid*math.Sqrt2
	}
	for _, r := range refs {
		placeLabel(r, curves, p)
	}
	stackNotes(p, refs)
	return figure{name: g.Name + "-errors", title: title, plot: p}, true
}

// contextFree is the context-free level of a bijection run (derived.ContextFree: V from
// its configuration, else from its Bayes curve's length), NaN for the other tasks.
func contextFree(r Run) float64 {
	n := 0
	if len(r.Evals) > 0 {
		n = len(r.Evals[len(r.Evals)-1].Eval.BayesEntropy)
	}
	return derived.ContextFree(r.Config.Task, r.Config.Tunnel.V, n)
}

// meanCurve is a band's mean line as drawn on a log axis (logFloor), for placing labels and
// reference notes clear of the curves.
func meanCurve(b band) plotter.XYs {
	c := make(plotter.XYs, len(b.x))
	for k := range b.x {
		c[k] = plotter.XY{X: b.x[k], Y: logFloor(b.mean[k])}
	}
	return c
}
