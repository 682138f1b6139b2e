package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"windtunnel/sessions/derived"
)

// The authors' bijection V=20 bit errors (b) the precision frontier is drawn against: their
// production checkpoint's and their 50k-step retrain's (Paper I; their evaluation code).
const (
	authorsProduction = 0.0067
	authorsRetrain    = 0.0008
)

// frontierFigure is the precision frontier (docs/paper1.md: The precision frontier):
// bit error (b) against wall time without pauses (derived.ActiveWall), log–log, one curve per configuration of the bijection
// V=20 transformer (the mean over its seeds at each evaluated step, at the mean wall time
// its seeds reached that step), with the authors' 0.0067 and 0.0008 bits as reference lines.
// It is drawn when the runs hold two or more such configurations.
func frontierFigure(runs []Run) (figure, bool) {
	const frontierLegendWidth = 400 // points: the 640-pixel page less the legend's thumbnail and margins
	var gs []Group
	for _, g := range Groups(runs) {
		if v := g.Runs[0].Config.Tunnel.V; g.Task() == "bijection" && g.Model() == "transformer" && (v == 0 || v == 20) {
			gs = append(gs, g)
		}
	}
	if len(gs) < 2 {
		return figure{}, false
	}
	p := newPlot("", "wall time without pauses (s, log)", "bit error (b), bits (log)")
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
	var curves []plotter.XYs
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, g := range gs {
		var walls, bits [][]derived.StepValue
		for _, r := range g.Runs {
			var w, bt []derived.StepValue
			for _, e := range r.Evals {
				if wall := derived.ActiveWall(e.WallS, r.Pauses); wall > 0 && e.Eval != nil {
					w = append(w, derived.StepValue{Step: e.Step, V: wall})
					bt = append(bt, derived.StepValue{Step: e.Step, V: e.Eval.BitErrorSample})
				}
			}
			walls, bits = append(walls, w), append(bits, bt)
		}
		// The band over seeds at each evaluated step, drawn at the mean wall time of that step.
		wall := map[int]float64{}
		for _, p := range derived.SeedBand(walls) {
			wall[p.Step] = p.Mean
		}
		var b band
		for _, p := range derived.SeedBand(bits) {
			w, ok := wall[p.Step]
			if !ok {
				continue
			}
			b.x, b.mean, b.lo, b.hi = append(b.x, w), append(b.mean, p.Mean), append(b.lo, p.Lo), append(b.hi, p.Hi)
			b.seeds = max(b.seeds, p.N)
			lo, hi = math.Min(lo, w), math.Max(hi, w)
		}
		if len(b.x) == 0 {
			continue
		}
		name := g.Label
		if name == "" {
			name = g.Name
		}
		name += " (" + seedsLabel(g) + ")"
		// Wrapped to the narrowest page a figure is laid out on, so the legend under the
		// plot keeps every configuration whole at one column too.
		name, _ = wrapText(p.Legend.TextStyle, name, frontierLegendWidth)
		if err := addBand(p, b, i, name, true); err != nil {
			return figure{}, false
		}
		curves = append(curves, meanCurve(b))
	}
	if len(curves) < 2 {
		return figure{}, false
	}
	title := fmt.Sprintf("bijection V=20: bit error (b) vs wall time, %d configurations", len(curves))
	p.Title.Text = title
	logAxis(p)
	p.Y.Min = math.Min(p.Y.Min, authorsRetrain/1.5)
	for _, ref := range []struct {
		bits  float64
		label string
	}{{authorsProduction, "authors 0.0067"}, {authorsRetrain, "authors, 50k steps, 0.0008"}} {
		r := hline(p, ref.bits, color.Gray{Y: 90}, ref.label)
		placeLabel(r, curves, p)
	}
	p.X.Min, p.X.Max = lo/1.2, hi*1.2
	return figure{name: "bijection-frontier", title: title, plot: p}, true
}
