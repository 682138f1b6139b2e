package figures

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
)

// PrimitiveCurves draws, for each task of the primitives table, every seed's curve of the
// primitive's metric (bit error (a) on a log axis, or recall's accuracy) against the step, one
// colour and dash a model (its legend entry gives the cell's verdict), with the pass line and
// the slow line (SlowFraction of the steps) the verdict reads: where a seed leaves a plateau,
// and whether it does so before the slow line, is what tells "slow" from ✓ and from "never".
// It writes dir/primitives-TASK.FORMAT, one figure a task with curves; budget names the budget
// in the titles.
func PrimitiveCurves(cells []derived.PrimitiveCell, budget, dir string, opt Options) ([]File, error) {
	opt, err := opt.normalised()
	if err != nil {
		return nil, err
	}
	var tasks []string
	byTask := map[string][]derived.PrimitiveCell{}
	for _, c := range cells {
		if len(c.Curves) == 0 {
			continue
		}
		tasks = appendNew(tasks, c.Task)
		byTask[c.Task] = append(byTask[c.Task], c)
	}
	var figs []figure
	for _, t := range tasks {
		f, err := primitiveCurvesFigure(byTask[t], budget)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	if len(figs) == 0 {
		return nil, fmt.Errorf("figures: primitive curves: no cell has curves")
	}
	return writeFigures(figs, dir, opt)
}

// primitiveCurvesFigure is one task's figure: its cells' seeds, a model a colour.
func primitiveCurvesFigure(cells []derived.PrimitiveCell, budget string) (figure, error) {
	pr := cells[0].Primitive
	y := pr.Measure()
	logY := !pr.AtLeast()
	if logY {
		y += ", bits (log)"
	}
	p := newPlot("", "step", y)
	integerX(p, 7)
	steps, lo, hi := 0, math.Inf(1), math.Inf(-1)
	for i, c := range cells {
		sty := curveStyle(modelStyle(c.Model, i))
		sty.Width = vg.Points(1.4)
		var first *plotter.Line
		for _, curve := range c.Curves {
			var xy plotter.XYs
			for _, sv := range curve {
				v := sv.V
				if math.IsNaN(v) || math.IsInf(v, 0) {
					continue
				}
				if logY {
					v = math.Max(v, floorBits)
				}
				xy = append(xy, plotter.XY{X: float64(sv.Step), Y: v})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return figure{}, fmt.Errorf("figures: primitive curves: %w", err)
			}
			l.LineStyle = sty
			p.Add(l)
			if first == nil {
				first = l
			}
		}
		if first != nil {
			p.Legend.Add(fmt.Sprintf("%s: %s, %d/%d seeds", c.Model, verdictWord(c.Verdict), c.SeedsPassed, len(c.Seeds)), first)
		}
		steps = max(steps, c.Steps)
	}
	if logY {
		p.Y.Min, p.Y.Max = math.Min(lo, pr.Threshold), math.Max(hi, pr.Threshold)
		logAxis(p)
	} else {
		p.Y.Min, p.Y.Max = 0, 1.02
	}
	p.X.Min, p.X.Max = 0, float64(steps)
	hline(p, pr.Threshold, color.Black, "pass: "+pr.Rule())
	slow := cells[0].SlowAfter
	addVLine(p, float64(slow), color.Gray{Y: 96}, fmt.Sprintf("slow after step %d", slow))
	title := fmt.Sprintf("%s (%s), budget %s: every seed's %s", pr.Task, pr.Name, budget, pr.Measure())
	return panelled("primitives-"+pr.Task, title, panel{plot: p, x0: 0, x1: 1, y0: 0, y1: 1}), nil
}

// modelStyle is the curve style index of model: its row in Paper I's table (arch.PaperKinds),
// so that a model has one colour in every primitives figure whichever models it shows; a
// model outside the table takes the styles after them, by its place i among the cells.
func modelStyle(model string, i int) int {
	kinds := arch.PaperKinds()
	if k := slices.Index(kinds, model); k >= 0 {
		return k
	}
	return len(kinds) + i
}

// verdictWord is a verdict as the figures write it: pass, slow or FAIL.
func verdictWord(v string) string {
	switch v {
	case derived.VerdictPass:
		return "pass"
	case derived.VerdictSlow:
		return "slow"
	}
	return "FAIL"
}
