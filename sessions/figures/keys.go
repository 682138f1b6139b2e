package figures

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// keysFigure is key orthogonality per layer × head against both baselines (docs/usage.md: Geometry),
// from the first seed's newest snapshot: on top the authors' statistic (the value tokens'
// embeddings through the layer's norm and the head's W_K) trained beside its value at
// initialisation, below the bench's (the centred per-token mean keys) beside random
// Gaussian vectors of the same count and dimension (one level, a dashed line). Sessions
// recorded before the authors' statistic get the bench's panel alone; a snapshot without
// attention gets no figure. On a low page the two panels stand side by side.
func keysFigure(g Group) (figure, bool) {
	s, r, ok := snapshotOf(g)
	if !ok || len(s.KeyOrthogonality) == 0 {
		return figure{}, false
	}
	var labels []string
	var bench, emb, init plotter.Values
	for l, row := range s.KeyOrthogonality {
		for h, v := range row {
			labels = append(labels, headLabel(l, h))
			bench = append(bench, v)
			emb = append(emb, cellAt(s.KeyOrthogonalityEmbed, l, h))
			init = append(init, cellAt(s.KeyOrthogonalityEmbedInit, l, h))
		}
	}
	title := fmt.Sprintf("%s: key orthogonality per head %s", heading(g), snapLabel(g, r))
	lower, err := keyBars("bench's statistic: centred per-token mean keys", labels,
		[]plotter.Values{bench}, []string{"trained"})
	if err != nil {
		return figure{}, false
	}
	if rnd := s.KeyOrthogonalityRandom; rnd > 0 {
		r := hline(lower, rnd, color.Black, fmt.Sprintf("random vectors %.3f", rnd))
		lower.Y.Max = max(lower.Y.Max, 1.35*rnd)
		placeLabel(r, barPoints(bench), lower)
	}
	if len(s.KeyOrthogonalityEmbed) == 0 {
		lower.Title.Text = title + "\n" + lower.Title.Text
		return figure{name: g.Name + "-keys", title: title, plot: lower}, true
	}
	upper, err := keyBars(fmt.Sprintf("authors' statistic: value-token embeddings through norm and W_K (%d tokens)",
		s.KeyOrthogonalityEmbedTokens), labels, []plotter.Values{emb, init}, []string{"trained", "at initialisation"})
	if err != nil {
		return figure{}, false
	}
	f := panelled(g.Name+"-keys", title,
		panel{plot: upper, x0: 0, x1: 1, y0: 0.5, y1: 1},
		panel{plot: lower, x0: 0, x1: 1, y0: 0, y1: 0.5})
	f.short = []panel{{plot: upper, x0: 0, x1: 0.5, y0: 0, y1: 1}, {plot: lower, x0: 0.5, x1: 1, y0: 0, y1: 1}}
	return f, true
}

// keyBars is a grouped bar chart of the series (one bar per head in each group), named.
func keyBars(title string, labels []string, series []plotter.Values, names []string) (*plot.Plot, error) {
	p := newPlot(title, "layer × head", "mean |off-diagonal cosine|")
	w := vg.Points(float64(max(2, min(14, 400/max(len(labels), 1)))))
	for i, vs := range series {
		clean := make(plotter.Values, len(vs))
		for k, v := range vs {
			if v == v { // NaN (not recorded) draws no bar
				clean[k] = v
			}
		}
		b, err := plotter.NewBarChart(clean, w)
		if err != nil {
			return nil, err
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		p.Add(slotBars{b, i, len(series)})
		p.Legend.Add(names[i], b)
	}
	p.NominalX(labels...)
	rotateX(p, len(labels))
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5 // the end groups whole
	p.Y.Min = 0
	p.Y.Max *= 1.35 // room for the legend above the bars
	return p, nil
}

// cellAt is m[l][h], NaN where m has no such cell.
func cellAt(m [][]float64, l, h int) float64 {
	if l < len(m) && h >= 0 && h < len(m[l]) {
		return m[l][h]
	}
	return nan
}
