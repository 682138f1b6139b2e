package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// simplexFigure is the belief simplex of an hmm run (Paper I's Mamba figure) from the first
// seed's newest snapshot: PC1 against PC2 of the final layer's states at the observation
// positions, each point coloured by the exact posterior's argmax state (one legend entry a
// state); the title gives the numbers that turn the picture into a measurement: k-means
// purity, the R² of the linear map to the posterior and the mean distance of the cluster
// centres' images from their corners.
func simplexFigure(g Group) (figure, bool) {
	s, r, ok := snapshotOf(g)
	if !ok || s.Simplex == nil || len(s.Simplex.Points) == 0 {
		return figure{}, false
	}
	sx := s.Simplex
	sub := fmt.Sprintf("k-means purity %.2f, R² %.2f, corner distance %.2f (%d of %d points shown)",
		float64(sx.Purity), float64(sx.R2), float64(sx.MeanCornerDist), len(sx.Points), sx.N)
	if sx.SymbolPurity > 0 {
		sub = fmt.Sprintf("k-means purity %.2f (against the observed symbol %.2f), R² %.2f, corner distance %.2f (%d of %d shown)",
			float64(sx.Purity), float64(sx.SymbolPurity), float64(sx.R2), float64(sx.MeanCornerDist), len(sx.Points), sx.N)
	}
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
			return figure{}, false
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(st), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("state %d", st), sc)
	}
	title := fmt.Sprintf("%s: belief simplex, final-layer states by argmax state %s", heading(g), snapLabel(g, r))
	return panelled(g.Name+"-simplex", title, panel{plot: p, x0: 0, x1: 1, y0: 0, y1: 1}), true
}
