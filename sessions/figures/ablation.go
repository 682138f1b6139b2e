package figures

import (
	"fmt"
	"image/color"
	"math"
	"windtunnel/diagnostics"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/sessions"
)

// ablationFigure is the head ablation from the first seed's newest snapshot: on the left Δ
// bit error (a) with each head zeroed, one bar per head, the costliest head in red and
// named; on the right the same as a layer × head heat map with its colour bar. A model
// without heads (recurrent layers) gets the bars of its ablated units alone; a snapshot
// without ablation gets no figure.
func ablationFigure(g Group) (figure, bool) {
	s, r, ok := snapshotOf(g)
	if !ok {
		return figure{}, false
	}
	hd := headDelta(s)
	title := fmt.Sprintf("%s: ablation, Δ bit error (a) when zeroed %s", heading(g), snapLabel(g, r))
	var labels []string
	var vals plotter.Values
	best := -1
	if len(hd) > 0 {
		for l, row := range hd {
			for h, v := range row {
				if c := diagnostics.Costly(s.CostliestHead); c != nil && c.Layer == l && c.Head == h {
					best = len(vals)
				}
				labels = append(labels, headLabel(l, h))
				vals = append(vals, v)
			}
		}
	} else {
		for _, e := range s.Ablation {
			if c := diagnostics.Costly(s.Costliest); c != nil && *c == e {
				best = len(vals)
			}
			labels = append(labels, unitLabel(e))
			vals = append(vals, e.DeltaBits)
		}
	}
	if len(vals) == 0 {
		return figure{}, false
	}
	bars, err := ablationBars(labels, vals, best, len(hd) > 0)
	if err != nil {
		return figure{}, false
	}
	if len(hd) == 0 {
		bars.Title.Text = title + "\n" + bars.Title.Text
		return figure{name: g.Name + "-ablation", title: title, plot: bars}, true
	}
	lo, hi := finiteRange(hd)
	cm := colourRange(viridis(), math.Min(lo, 0), hi)
	gr := grid{z: hd, ys: indices(len(hd))}
	for _, row := range hd {
		gr.xs = indices(max(len(gr.xs), len(row)))
	}
	hm := heatMap(gr, cm, "layer × head", "head", "layer")
	hm.X.Tick.Marker, hm.Y.Tick.Marker = integerTicks{1}, integerTicks{1}
	return panelled(g.Name+"-ablation", title,
		panel{plot: bars, x0: 0, x1: 0.55, y0: 0, y1: 1},
		panel{plot: hm, x0: 0.55, x1: 0.9, y0: 0, y1: 1},
		panel{plot: colourBar(cm, "Δ bits"), x0: 0.9, x1: 1, y0: 0, y1: 1, bar: true}), true
}

// headDelta is the snapshot's HeadDelta as float64s, else the head effects of Ablation
// laid out by layer and head; nil when there are none.
func headDelta(s *sessions.Snapshot) [][]float64 {
	if len(s.HeadDelta) > 0 {
		return nums(s.HeadDelta)
	}
	var out [][]float64
	for _, e := range s.Ablation {
		if e.Unit != "head" || e.Layer < 0 || e.Head < 0 {
			continue
		}
		for len(out) <= e.Layer {
			out = append(out, nil)
		}
		for len(out[e.Layer]) <= e.Head {
			out[e.Layer] = append(out[e.Layer], nan)
		}
		out[e.Layer][e.Head] = e.DeltaBits
	}
	return out
}

// unitLabel names an ablated unit: "L1H2", "L1 attn", "L1 mlp", "L1".
func unitLabel(e diagnostics.Effect) string {
	switch e.Unit {
	case "head":
		return headLabel(e.Layer, e.Head)
	case "layer":
		return fmt.Sprintf("L%d", e.Layer)
	}
	return fmt.Sprintf("L%d %s", e.Layer, e.Unit)
}

// ablationBars is the bar chart of vals, bar best (−1: none) in red with its name above it.
func ablationBars(labels []string, vals plotter.Values, best int, heads bool) (*plot.Plot, error) {
	x := "layer × head"
	if !heads {
		x = "unit"
	}
	p := newPlot("Δ bit error (a) per head", x, "Δ bits (zeroed − intact)")
	if !heads {
		p.Title.Text = "Δ bit error (a) per unit"
	}
	clean := make(plotter.Values, len(vals))
	for i, v := range vals {
		if !math.IsNaN(v) {
			clean[i] = v
		}
	}
	w := vg.Points(float64(max(2, min(16, 300/len(vals)))))
	b, err := plotter.NewBarChart(clean, w)
	if err != nil {
		return nil, err
	}
	b.Color = plotutil.Color(0)
	b.LineStyle.Width = 0
	p.Add(slotBars{b, 0, 1})
	p.Legend.Add("Δ bits", b)
	if best >= 0 {
		hi := make(plotter.Values, len(vals))
		hi[best] = clean[best]
		c, err := plotter.NewBarChart(hi, w)
		if err != nil {
			return nil, err
		}
		c.Color = color.RGBA{R: 220, G: 30, B: 30, A: 255}
		c.LineStyle.Width = 0
		p.Add(slotBars{c, 0, 1})
		name := fmt.Sprintf("costliest %s (%s)", labels[best], signedBits(clean[best]))
		p.Legend.Add(name, c)
		lb, err := plotter.NewLabels(plotter.XYLabels{
			XYs:    plotter.XYs{{X: float64(best), Y: clean[best]}},
			Labels: []string{"costliest"},
		})
		if err == nil { // at the bar's end, above it or, for a bar below 0, under it
			lb.TextStyle[0].XAlign = draw.XCenter
			lb.Offset = vg.Point{Y: vg.Points(3)}
			if clean[best] < 0 {
				lb.TextStyle[0].YAlign = draw.YTop
				lb.Offset.Y = -vg.Points(3)
			}
			p.Add(lb)
		}
	}
	if best < 0 && maxFinite(clean) <= 0 { // nothing to name: say why, not "costliest" for the least negative
		p.Title.Text += "\nnone costs bits: zeroing any helps or is free (every Δ ≤ 0)"
	}
	p.NominalX(labels...)
	rotateX(p, len(labels))
	p.X.Min, p.X.Max = -0.5, float64(len(vals))-0.5 // the end bars whole, not cut in half
	p.Y.Min, p.Y.Max = math.Min(p.Y.Min, 0), math.Max(p.Y.Max, 0)
	pad := (p.Y.Max - p.Y.Min) * 0.1 // room for the label at the bars' end
	if p.Y.Max > 0 {
		p.Y.Max += pad
	}
	if p.Y.Min < 0 {
		p.Y.Min -= pad
	}
	return p, nil
}

// signedBits writes a Δ in bits with its sign to three decimals, or to two significant
// digits when that would read ±0.000 ("+0.444", "-0.00011").
func signedBits(v float64) string {
	if v != 0 && math.Abs(v) < 0.0005 {
		return fmt.Sprintf("%+.2g", v)
	}
	return fmt.Sprintf("%+.3f", v)
}

// maxFinite is the largest of vals (−Inf when empty).
func maxFinite(vals plotter.Values) float64 {
	m := math.Inf(-1)
	for _, v := range vals {
		m = math.Max(m, v)
	}
	return m
}
