package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/sessions/derived"
)

// frameFigure is the frame-precision dissociation (DESIGN.md §4) from the first seed's
// newest snapshot: over the steps of the snapshots so far, the frame (the authors' J-lens
// ratio, mean over sites, where it was recorded, and the attention pattern's distance to
// this snapshot's, mean over layers of FramePoint.ToLatest), the precision
// (derived.PrecisionScale of bit error (a)) and 1 − |ρ(PC1, entropy)|, each
// scaled min–max to [0, 1] on one step axis, with the steps from which each settled (as
// the lab recorded them in Frame.Settle) as labelled vertical lines. A model without
// attention (no frame) gets no figure.
func frameFigure(g Group) (figure, bool) {
	s, r, ok := snapshotOf(g)
	if !ok || s.Frame == nil || len(s.Frame.Points) == 0 {
		return figure{}, false
	}
	var steps, jlens, frame, prec, rho []float64
	for _, pt := range s.Frame.Points {
		steps = append(steps, float64(pt.Step))
		frame = append(frame, derived.MeanNum(pt.ToLatest))
		prec = append(prec, derived.PrecisionScale(pt.BitError))
		a := float64(pt.PC1Abs)
		rho = append(rho, 1-a) // NaN stays NaN
	}
	jlens, _ = derived.FrameJLens(s.Frame.Points)
	if allNaN(frame) { // no attention: no frame to dissociate
		return figure{}, false
	}
	title := fmt.Sprintf("%s: frame-precision dissociation %s", g.Name, snapLabel(g, r))
	p := newPlot(title, "step", "scaled to [0, 1] (min–max)")
	series := []struct {
		name string
		ys   []float64
	}{
		{"frame: attention distance to latest (mean over layers)", frame},
		{"precision: log2 bit error (a)", prec},
		{"1 − |ρ(PC1, entropy)|", rho},
		{"frame: J-lens overlap ÷ null at its site (authors')", jlens},
	}
	drawn := 0
	for i, sr := range series {
		pts := make(plotter.XYs, 0, len(steps))
		for k, y := range minMax(sr.ys) {
			if !math.IsNaN(y) {
				pts = append(pts, plotter.XY{X: steps[k], Y: y})
			}
		}
		if len(pts) == 0 {
			continue
		}
		if err := addBand(p, band{x: xsOf(pts), mean: ysOf(pts), seeds: 1}, i, sr.name, false); err != nil {
			return figure{}, false
		}
		drawn++
	}
	if drawn == 0 {
		return figure{}, false
	}
	p.Y.Min, p.Y.Max = -0.02, 1.55
	if st := s.Frame.Settle; st != nil {
		p.Title.Text += fmt.Sprintf("\nsettled: from the step each stayed within %.0f%% of its range of its latest value", 100*st.Band)
		jl, _ := derived.FrameSettle(s.Frame.Points)
		marks := []struct {
			name string
			at   int
		}{{"attention frame", st.Frame}, {"precision", st.BitError}, {"|ρ|", st.Rho}, {"J-lens frame", jl}}
		for i, m := range marks {
			if m.at < 0 || (i == 2 && allNaN(rho)) {
				continue
			}
			p.Add(vline{x: float64(m.at), style: draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(1),
				Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}})
			lb, err := plotter.NewLabels(plotter.XYLabels{
				XYs:    plotter.XYs{{X: float64(m.at), Y: 1.04 + 0.08*float64(i)}},
				Labels: []string{fmt.Sprintf("%s settled (%d)", m.name, m.at)},
			})
			if err == nil {
				lb.Offset = vg.Point{X: vg.Points(3)}
				lb.TextStyle[0].Color = plotutil.Color(i)
				p.Add(lb)
			}
		}
	}
	return figure{name: g.Name + "-frame", title: title, plot: p}, true
}

// minMax scales the finite values of vs to [0, 1] (all 0 when they are equal); NaN stays.
func minMax(vs []float64) []float64 {
	lo, hi := finiteRange([][]float64{vs})
	out := make([]float64, len(vs))
	for i, v := range vs {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			out[i] = nan
		case hi > lo:
			out[i] = (v - lo) / (hi - lo)
		}
	}
	return out
}

// allNaN reports whether vs has no number.
func allNaN(vs []float64) bool {
	for _, v := range vs {
		if !math.IsNaN(v) {
			return false
		}
	}
	return true
}

// xsOf and ysOf are the coordinates of pts.
func xsOf(pts plotter.XYs) []float64 {
	out := make([]float64, len(pts))
	for i, p := range pts {
		out[i] = p.X
	}
	return out
}

func ysOf(pts plotter.XYs) []float64 {
	out := make([]float64, len(pts))
	for i, p := range pts {
		out[i] = p.Y
	}
	return out
}
