package figures

import (
	"fmt"
	"image/color"
	"math"

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
	title := fmt.Sprintf("%s: bit error and KL vs step (%s)", g.Name, seedsLabel(g))
	p := newPlot(title, "step", "bits (log)")
	any := false
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
		any = true
		name := m.name
		if b.seeds > 1 {
			name += " mean ± sd"
		}
		if err := addBand(p, b, i, name, true); err != nil {
			return figure{}, false
		}
	}
	if !any {
		return figure{}, false
	}
	if g.Runs[0].Config.Task != "recall" {
		hline(p, derived.PassBits, color.RGBA{R: 0, G: 140, B: 0, A: 255}, fmt.Sprintf("pass %.2f bits (a)", derived.PassBits))
	}
	if cf := contextFree(g.Runs[0]); !math.IsNaN(cf) {
		hline(p, cf, color.Gray{Y: 100}, fmt.Sprintf("context-free %.2f bits", cf))
		p.Y.Max = math.Max(p.Y.Max, cf*1.2)
	}
	p.Y.Max = math.Max(p.Y.Max, derived.PassBits*1.2)
	logAxis(p)
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
