package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
)

// pc1Spread is the standard deviation of a manifold's PC1 coordinates (the unit the
// trajectories are drawn in, so that models of other scales compare).
func pc1Spread(s *llmrun.Set) float64 {
	var sum, ss float64
	for _, p := range s.Points {
		sum += float64(p[0])
	}
	n := float64(max(1, len(s.Points)))
	for _, p := range s.Points {
		d := float64(p[0]) - sum/n
		ss += d * d
	}
	return math.Sqrt(ss / n)
}

// llmNullsFigure is the SULA trajectory beside its nulls: the mean PC1 of the hidden states by
// k for the model, under the evidence ablation (on the model's axis) and the lexical remap, and
// for each random-weight copy, each in units of its own PC1 standard deviation and starting
// at 0 at k = 0, so that a line that rises only because prompts grow longer shows as such.
func llmNullsFigure(r *llmrun.Result, name string, _ bool) (figure, bool) {
	s, n := r.SULA, r.Nulls
	if s == nil || n == nil || len(s.ByK) < 2 {
		return figure{}, false
	}
	title := name + "SULA trajectory beside its nulls\nmean PC1 by k, from k = 0, in PC1 standard deviations"
	p := newPlot(title, "k (examples)", "Δ mean PC1 (sd)")
	ks := make([]float64, len(s.ByK))
	own := make([]sessions.Num, len(s.ByK))
	for i, k := range s.ByK {
		ks[i], own[i] = float64(k.K), k.PC1Mean
	}
	sd := pc1Spread(&s.Manifold)
	i := 0
	add := func(label string, means []sessions.Num, sd float64) {
		if len(means) != len(ks) || !(sd > 0) {
			return
		}
		var xy plotter.XYs
		for j, m := range means {
			xy = append(xy, plotter.XY{X: ks[j], Y: (float64(m) - float64(means[0])) / sd})
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return
		}
		l.LineStyle = curveStyle(i)
		pts.Color = plotutil.Color(i)
		p.Add(l, pts)
		p.Legend.Add(label, l, pts)
		i++
	}
	add("model", own, sd)
	if a := n.Ablation; a != nil {
		add("evidence ablation", a.PC1ByK, sd)
	}
	if m := n.Remap; m != nil {
		add(fmt.Sprintf("lexical remap (%s/%s)", sessions.SafeText(m.Labels[0]), sessions.SafeText(m.Labels[1])), m.PC1ByK, float64(m.PC1SD))
	}
	for j, rr := range n.Random {
		if rr.SULA == nil {
			continue
		}
		var means []sessions.Num
		for _, k := range rr.SULA.ByK {
			means = append(means, k.PC1Mean)
		}
		label := "random weights"
		if j < len(n.RandomInits) {
			if n.RandomInits[j] > 0 {
				label += fmt.Sprintf(", N(0, %.2g²)", n.RandomInits[j])
			} else {
				label += ", variance-preserving"
			}
		}
		add(label, means, pc1Spread(&rr.SULA.Manifold))
	}
	if i < 2 {
		return figure{}, false
	}
	integerX(p, 9)
	p.Legend.Top, p.Legend.Left = true, true
	return figure{name: "llm-nulls", title: title, plot: p}, true
}
