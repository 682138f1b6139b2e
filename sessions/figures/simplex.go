package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// simplexFigure is the belief simplex of an hmm run (Paper I's Mamba figure) from the first
// seed's newest snapshot: PC1 against PC2 of the final layer's states at the observation
// positions, each point coloured by the exact posterior's argmax state (one legend entry a
// state); its title gives the numbers that turn the picture into a measurement: k-means
// purity, the R² of the linear map to the posterior and the mean distance of the cluster
// centres' images from their corners. Beside it, the same picture and numbers of the exact
// posterior itself on the same sequences (derived.SimplexOptimum): what a perfect model's
// layer would show.
func simplexFigure(g Group) (figure, bool) {
	s, r, ok := snapshotOf(g)
	if !ok || s.Simplex == nil || len(s.Simplex.Points) == 0 {
		return figure{}, false
	}
	sx := s.Simplex
	sub := fmt.Sprintf("trained: purity %.2f (symbol %.2f), R² %.2f, corner %.2f",
		float64(sx.Purity), float64(sx.SymbolPurity), float64(sx.R2), float64(sx.MeanCornerDist))
	if sx.SymbolPurity <= 0 {
		sub = fmt.Sprintf("trained: purity %.2f, R² %.2f, corner %.2f", float64(sx.Purity), float64(sx.R2), float64(sx.MeanCornerDist))
	}
	model, ok := simplexScatter(sx, sub, false)
	if !ok {
		return figure{}, false
	}
	title := fmt.Sprintf("%s: belief simplex, final-layer states by argmax state %s, %d of %d points", heading(g), snapLabel(g, r), len(sx.Points), sx.N)
	opt, err := derived.SimplexOptimum(r.Config, len(sx.Points))
	var ideal *plot.Plot
	if err == nil && opt != nil && len(opt.Points) > 0 {
		ideal, ok = simplexScatter(opt, fmt.Sprintf("exact posterior: purity %.2f, corner %.2f", float64(opt.Purity), float64(opt.MeanCornerDist)), true)
	}
	if ideal == nil || !ok { // the model's picture alone, with the legend
		model, _ = simplexScatter(sx, sub, true)
		return panelled(g.Name+"-simplex", title, panel{plot: model, x0: 0, x1: 1, y0: 0, y1: 1}), true
	}
	return panelled(g.Name+"-simplex", title, panel{plot: model, x0: 0, x1: 0.5, y0: 0, y1: 1},
		panel{plot: ideal, x0: 0.5, x1: 1, y0: 0, y1: 1}), true
}

// simplexScatter is PC1 against PC2 of sx's points, one colour a state (a legend entry each
// when legend is set), under the subtitle sub; ok is false when a scatter cannot be made.
func simplexScatter(sx *sessions.Simplex, sub string, legend bool) (*plot.Plot, bool) {
	p := newPlot(sub, "PC1", "PC2")
	for st := range sx.States {
		var pts plotter.XYs
		for i, pt := range sx.Points {
			if i < len(sx.Argmax) && sx.Argmax[i] == st && !math.IsNaN(pt[0]) && !math.IsNaN(pt[1]) {
				pts = append(pts, plotter.XY{X: pt[0], Y: pt[1]})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, false
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(st), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		if legend {
			p.Legend.Add(fmt.Sprintf("state %d", st), sc)
		}
	}
	return p, true
}
