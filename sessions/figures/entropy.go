package figures

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// entropyFigure is the entropy calibration at the last evaluation: the model's mean
// entropy per scored position (mean ± sd over seeds) beside the exact posterior's.
func entropyFigure(g Group) (figure, bool) {
	var model, bayes [][][2]float64
	step := 0
	for _, r := range g.Runs {
		if len(r.Evals) == 0 {
			continue
		}
		last := r.Evals[len(r.Evals)-1]
		step = max(step, last.Step)
		model = append(model, positions(last.Eval.ModelEntropy))
		bayes = append(bayes, positions(last.Eval.BayesEntropy))
	}
	mb, bb := meanBand(model), meanBand(bayes)
	if len(mb.x) == 0 || len(bb.x) == 0 {
		return figure{}, false
	}
	title := fmt.Sprintf("%s: entropy calibration at step %d (%s)", heading(g), step, seedsLabel(g))
	p := newPlot(title, "scored position", "entropy (bits)")
	integerX(p, 8)
	// The model first, solid and wide, Bayes dashed over it: where they agree both show.
	name := "model H(q)"
	if mb.seeds > 1 {
		name += " mean ± sd"
	}
	if err := addBand(p, mb, 0, name, false); err != nil {
		return figure{}, false
	}
	pts := make(plotter.XYs, len(bb.x))
	for k := range bb.x {
		pts[k] = plotter.XY{X: bb.x[k], Y: bb.mean[k]}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return figure{}, false
	}
	l.Color = color.Black
	l.Width = vg.Points(1.5)
	l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(l)
	p.Legend.Add("Bayes H(p*)", l)
	if p.Y.Min > 0 {
		p.Y.Min = 0
	}
	p.Y.Max += 0.04 * (p.Y.Max - p.Y.Min) // a curve at the top stays clear of the frame
	return figure{name: g.Name + "-entropy", title: title, plot: p}, true
}

// positions numbers a per-position series from 1.
func positions(ys []float64) [][2]float64 {
	out := make([][2]float64, len(ys))
	for i, y := range ys {
		out[i] = [2]float64{float64(i + 1), y}
	}
	return out
}
