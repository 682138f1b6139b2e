package figures

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/sessions"
)

// manifoldFigure is the value manifold (docs/usage.md: Geometry) from the first seed's newest
// snapshot: PC1 against PC2 of the final-norm residual at scored positions, each point
// coloured by its posterior entropy on one colour map (the bar at the right), over many
// probe sequences and, beside it when recorded, over one sequence's positions (the authors'
// sampling); each panel's title gives |ρ(PC1, entropy)| (Spearman; the headline, which
// does not depend on the sampling) and the PC1 share (which does).
func manifoldFigure(g Group) (figure, bool) {
	s, r, ok := snapshotOf(g)
	if !ok || !hasPoints(s.Manifold) {
		return figure{}, false
	}
	ms := []*sessions.Manifold{s.Manifold}
	names := []string{"many sequences"}
	if hasPoints(s.ManifoldOne) {
		ms, names = append(ms, s.ManifoldOne), append(names, "one sequence")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range ms {
		for _, e := range m.Entropy {
			if !math.IsNaN(e) {
				lo, hi = math.Min(lo, e), math.Max(hi, e)
			}
		}
	}
	cm := colourRange(viridis(), lo, hi)
	title := fmt.Sprintf("%s: value manifold, PC1 vs PC2 by posterior entropy %s", heading(g), snapLabel(g, r))
	const barW = 0.1
	pw := (1 - barW) / float64(len(ms))
	panels := make([]panel, 0, len(ms)+1)
	for i, m := range ms {
		p, err := manifoldScatter(m, names[i], cm)
		if err != nil {
			return figure{}, false
		}
		panels = append(panels, panel{plot: p, x0: pw * float64(i), x1: pw * float64(i+1), y0: 0, y1: 1})
	}
	panels = append(panels, panel{plot: colourBar(cm, "posterior entropy (bits)"), x0: 1 - barW, x1: 1, y0: 0, y1: 1, bar: true})
	return panelled(g.Name+"-manifold", title, panels...), true
}

// hasPoints reports whether m holds points with two coordinates or more.
func hasPoints(m *sessions.Manifold) bool {
	return m != nil && len(m.Points) > 0 && len(m.Points[0]) >= 2
}

// manifoldScatter is one sampling's scatter, its title the sampling, |ρ| and shares.
func manifoldScatter(m *sessions.Manifold, name string, cm palette.ColorMap) (*plot.Plot, error) {
	var pts plotter.XYs
	var ent []float64
	for i, pt := range m.Points {
		if len(pt) < 2 {
			continue
		}
		pts = append(pts, plotter.XY{X: pt[0], Y: pt[1]})
		e := nan
		if i < len(m.Entropy) {
			e = m.Entropy[i]
		}
		ent = append(ent, e)
	}
	t := name
	if m.Sequences > 0 {
		t += fmt.Sprintf(" (%d seq., %d points)", m.Sequences, len(pts))
		if m.N > len(pts) {
			t = strings.TrimSuffix(t, " points)") + fmt.Sprintf(" of %d points shown)", m.N)
		}
	}
	t += "\n" + rhoText(m)
	xl, yl := "PC1", "PC2"
	if len(m.Share) >= 2 {
		xl = fmt.Sprintf("PC1 (%.0f%% of variance)", 100*m.Share[0])
		yl = fmt.Sprintf("PC2 (%.0f%%)", 100*m.Share[1])
	}
	p := newPlot(t, xl, yl)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle {
		return draw.GlyphStyle{Color: colourAt(cm, ent[i]), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	}
	p.Add(sc)
	return p, nil
}

// rhoText is "|ρ(PC1, H)| = 0.97 (Spearman), Pearson −0.98", the numbers the manifold has.
func rhoText(m *sessions.Manifold) string {
	sp, pe := float64(m.Spearman), float64(m.Pearson)
	t := "|ρ(PC1, H)| n/a"
	if !math.IsNaN(sp) {
		t = fmt.Sprintf("|ρ(PC1, H)| = %.2f (Spearman)", math.Abs(sp))
	}
	if !math.IsNaN(pe) {
		t += fmt.Sprintf(", Pearson %+.2f", pe)
	}
	return t
}
