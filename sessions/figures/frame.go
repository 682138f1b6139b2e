package figures

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// frameFigure is the frame-precision dissociation (docs/usage.md: The dissociation rule) of the
// first seed with a snapshot: the authors' J-lens ratio (mean over positions and sites,
// against the final frame) and precision as derived.PrecisionScale of bit error (b)
// (frameSeries: the run's, as the report reads them), and from the newest snapshot's frame
// history the bench's attention frame (the attention pattern's distance to that snapshot's,
// mean over layers) and 1 − |ρ(PC1, entropy)|, on one step axis: the J-lens ratio scaled
// from chance (1) to its ceiling, the others min–max to [0, 1]; t_form and t_plateau of the pre-registered rule are dots on the J-lens curve,
// dropped to the step axis, and the rule's outcome is in the title. A model without attention (no frame) gets
// no figure.
func frameFigure(g Group) (figure, bool) {
	s, r, ok := snapshotOf(g)
	if !ok || s.Frame == nil || len(s.Frame.Points) == 0 {
		return figure{}, false
	}
	var steps, frame, rho []float64
	for _, pt := range s.Frame.Points {
		steps = append(steps, float64(pt.Step))
		frame = append(frame, derived.MeanNum(pt.ToLatest))
		rho = append(rho, 1-float64(pt.PC1Abs)) // NaN stays NaN
	}
	if allNaN(frame) { // no attention: no frame to dissociate
		return figure{}, false
	}
	jSteps, jlens, eSteps, prec, d := frameSeries(s, r)
	title := fmt.Sprintf("%s: frame-precision dissociation %s", heading(g), snapLabel(g, r))
	var marks []int // t_form, t_plateau on the J-lens curve
	if d != nil {
		outcome := "holds"
		if !d.Holds {
			outcome = "fails"
		}
		title += fmt.Sprintf("\nrule %s: θ %.2f; ", outcome, d.Threshold)
		if d.FormStep >= 0 {
			title += fmt.Sprintf("bit error (b) ×%.3g at t_form, ×%.3g at t_plateau of its final", d.BitErrorForm/d.BitErrorFinal, d.BitErrorPlateau/d.BitErrorFinal)
			marks = []int{d.FormStep, d.PlateauStep}
		} else {
			title += "the frame never formed"
		}
	}
	// The J-lens ratio is drawn from chance (1) to its ceiling, not min–max: a ratio that
	// has formed and only wanders by a few percent stays flat, as it is.
	jname, jys := "J-lens frame: overlap ÷ null (authors')", minMax(jlens)
	if d != nil && d.Ceiling > 1 {
		jname = fmt.Sprintf("J-lens frame: overlap ÷ null, 1 to its ceiling %.3g (authors')", d.Ceiling)
		jys = make([]float64, len(jlens))
		for k, v := range jlens {
			jys[k] = (v - 1) / (d.Ceiling - 1)
		}
	}
	p := newPlot(title, "step", "scaled to [0, 1] (others min–max)")
	integerX(p, 7)
	series := []struct {
		name   string
		xs, ys []float64
	}{
		{jname, jSteps, jys},
		{"precision: log2 bit error (b)", eSteps, prec},
		{"attention frame: distance to the latest pattern", steps, frame},
		{"1 − |ρ(PC1, entropy)|", steps, rho},
	}
	curves := make([]plotter.XYs, len(series))
	for i, sr := range series {
		ys := sr.ys
		if i > 0 {
			ys = minMax(ys)
		}
		for k, y := range ys {
			if !math.IsNaN(y) {
				curves[i] = append(curves[i], plotter.XY{X: sr.xs[k], Y: y})
			}
		}
	}
	drawn, lowest := 0, 0.0
	for i, sr := range series {
		pts := curves[i]
		if len(pts) == 0 {
			continue
		}
		for _, pt := range pts {
			lowest = math.Min(lowest, pt.Y) // a J-lens ratio below chance is below 0
		}
		name := sr.name
		if i == 0 && len(marks) == 2 {
			name += fmt.Sprintf(" (● t_form %d, t_plateau %d)", marks[0], marks[1])
		}
		// A curve that a later one (drawn over it) covers all along is hidden: the legend
		// says under which, rather than list a line no one can see.
		for j := len(series) - 1; j > i; j-- {
			if covers(curves[j], pts) {
				name += " (hidden under " + series[j].name + ")"
				break
			}
		}
		if err := addBand(p, band{x: xsOf(pts), mean: ysOf(pts), seeds: 1}, i, name, false); err != nil {
			return figure{}, false
		}
		if i == 0 {
			for _, at := range marks {
				if at >= 0 {
					addSettled(p, pts, at, i)
				}
			}
		}
		drawn++
	}
	if drawn == 0 {
		return figure{}, false
	}
	// Room above the curves for the legend; the ticks stop at 1, the top of the scale, and
	// reach down to a J-lens ratio below chance (scaled below 0), which is drawn, not clipped.
	p.Y.Min, p.Y.Max = math.Min(-0.03, lowest-0.03), 1.38
	var ticks plot.ConstantTicks
	for k := int(math.Floor(p.Y.Min/0.2)) + 1; k <= 5; k++ {
		v := float64(k) / 5
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 2, 64)})
	}
	p.Y.Tick.Marker = ticks
	return figure{name: g.Name + "-frame", title: title, plot: p}, true
}

// frameSeries is the J-lens ratio and precision series of the frame figure with the rule's
// outcome: the report's (derived.Run: the ratio over every snapshot of the run, bit error (b)
// at every evaluation) where the run's snapshots give a ratio, else the newest snapshot's own
// history (a session whose earlier snapshots kept no J-lens bases); d is nil without a J-lens.
func frameSeries(s *sessions.Snapshot, r Run) (jSteps, jlens, eSteps, prec []float64, d *derived.Dissociation) {
	if fr := r.FrameRatio; fr != nil && r.Dissociation != nil {
		for _, pt := range fr.Points {
			if !math.IsNaN(pt.MeanFinal) {
				jSteps, jlens = append(jSteps, float64(pt.Step)), append(jlens, pt.MeanFinal)
			}
		}
	}
	if len(jlens) > 0 {
		for _, e := range r.Evals {
			if e.Eval != nil {
				eSteps, prec = append(eSteps, float64(e.Step)), append(prec, derived.PrecisionScale(e.Eval.BitErrorSample))
			}
		}
		return jSteps, jlens, eSteps, prec, r.Dissociation
	}
	jl, _ := derived.FrameJLens(s.Frame.Points)
	for i, pt := range s.Frame.Points {
		b := pt.BitErrorSample
		if b == 0 { // sessions written before (b) was kept in the history
			b = pt.BitError
		}
		jSteps, jlens = append(jSteps, float64(pt.Step)), append(jlens, jl[i])
		eSteps, prec = append(eSteps, float64(pt.Step)), append(prec, derived.PrecisionScale(b))
	}
	if s.JLens.Current() && float64(s.JLens.Null) > 0 {
		if h, ok := derived.HistoryDissociation(s.Frame.Points, 1/float64(s.JLens.Null)); ok {
			d = &h
		}
	}
	return jSteps, jlens, eSteps, prec, d
}

// addSettled marks a step of curve i (the rule's t_form or t_plateau): a dot on the curve (pts, in step
// order) with a dotted drop line to the step axis, in the curve's colour.
func addSettled(p *plot.Plot, pts plotter.XYs, at, i int) {
	c := make([]derived.StepValue, len(pts))
	for k, pt := range pts {
		c[k] = derived.StepValue{Step: int(pt.X), V: pt.Y}
	}
	y, ok := derived.CurveAt(c, float64(at))
	if !ok {
		return
	}
	clr := plotutil.Color(i)
	p.Add(dropLine{x: float64(at), y: y, style: draw.LineStyle{Color: clr, Width: vg.Points(1),
		Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}})
	if sc, err := plotter.NewScatter(plotter.XYs{{X: float64(at), Y: y}}); err == nil {
		sc.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(4.5), Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
}

// dropLine is a vertical line from the bottom of the data area up to (x, y).
type dropLine struct {
	x, y  float64
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (d dropLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	c.StrokeLine2(d.style, trX(d.x), c.Min.Y, trX(d.x), trY(d.y))
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

// coverTol is how near (in the frame figure's [0, 1] units, about a line's width at the
// sizes figures are drawn) a curve must run to another to hide it.
const coverTol = 0.012

// covers reports whether the curve over (in step order) runs within coverTol of every point
// of pts, and spans them: drawn over pts, it hides them.
func covers(over, pts plotter.XYs) bool {
	if len(over) < 2 || len(pts) == 0 {
		return false
	}
	c := make([]derived.StepValue, len(over))
	for k, pt := range over {
		c[k] = derived.StepValue{Step: int(pt.X), V: pt.Y}
	}
	for _, pt := range pts {
		y, ok := derived.CurveAt(c, pt.X)
		if !ok || math.Abs(y-pt.Y) > coverTol {
			return false
		}
	}
	return true
}
