package figures

import (
	"encoding/json"
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"

	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
)

// valueLRPair is Paper II's two arms among the groups (derived.ValueLRPairs): base with the
// smaller value-LR multiplier, arm with the larger, and what tells the pair from the task's
// other pairs ("" when it is the only one).
type valueLRPair struct {
	base, arm Group
	tag       string
}

// valueLRPairs finds the pairs among the transformer groups of each task, tasks in the order
// of their first group.
func valueLRPairs(gs []Group) []valueLRPair {
	byTask := map[string][]Group{}
	var tasks []string
	for _, g := range gs {
		if g.Model() != "transformer" || len(g.Runs) == 0 {
			continue
		}
		if byTask[g.Task()] == nil {
			tasks = append(tasks, g.Task())
		}
		byTask[g.Task()] = append(byTask[g.Task()], g)
	}
	var pairs []valueLRPair
	for _, task := range tasks {
		tg := byTask[task]
		cfgs := make([]json.RawMessage, len(tg))
		vlr := make([]float64, len(tg))
		for k, g := range tg {
			cfgs[k], vlr[k] = g.Runs[0].Meta.Config, g.Runs[0].Config.ValueLR
		}
		for _, p := range derived.ValueLRPairs(cfgs, vlr) {
			pairs = append(pairs, valueLRPair{base: tg[p.Base], arm: tg[p.Arm], tag: p.Tag})
		}
	}
	return pairs
}

// timescalesFigures draws, for each value-LR pair, Paper II's comparison as the report
// states it (sessions/reports: the steps each arm needs to reach the baseline's final loss):
// KL against step, log, each arm's mean ± sd over its seeds, and the baseline's final KL
// (the mean over its seeds' last evaluations) as the target line.
func timescalesFigures(runs []Run) []figure {
	var figs []figure
	n := map[string]int{}
	for _, pr := range valueLRPairs(Groups(runs)) {
		task := pr.base.Task()
		opt := "AdamW"
		if pr.base.Runs[0].Config.Optimizer == runconfig.OptimizerSGD {
			opt = "SGD"
		}
		head := task
		if pr.tag != "" {
			head += ", " + pr.tag
		}
		title := fmt.Sprintf("%s: KL vs step, value LR ×%g and ×%g (%s)", head, pr.base.Runs[0].Config.ValueLR, pr.arm.Runs[0].Config.ValueLR, opt)
		p := newPlot(title, "step", "KL (bits, log)")
		integerX(p, 7)
		var curves []plotter.XYs
		for i, g := range []Group{pr.base, pr.arm} {
			series := make([][][2]float64, 0, len(g.Runs))
			for _, r := range g.Runs {
				s := make([][2]float64, 0, len(r.Evals))
				for _, e := range r.Evals {
					s = append(s, [2]float64{float64(e.Step), e.Eval.KLBits})
				}
				series = append(series, s)
			}
			b := meanBand(series)
			name := fmt.Sprintf("value LR ×%g (%s)", g.Runs[0].Config.ValueLR, seedsLabel(g))
			if b.seeds > 1 {
				name = fmt.Sprintf("value LR ×%g, mean ± sd of %s", g.Runs[0].Config.ValueLR, seedsLabel(g))
			}
			if err := addBand(p, b, i, name, true); err != nil {
				return figs
			}
			if len(b.x) > 0 {
				curves = append(curves, meanCurve(b))
			}
		}
		target, ok := finalKL(pr.base)
		if len(curves) < 2 || !ok {
			continue
		}
		logAxis(p)
		// Labelled at its left end, above: the baseline's mean curve ends on the line by
		// construction, and both arms start above it.
		r := hline(p, target, color.Black, fmt.Sprintf("target: ×%g final %.3f", pr.base.Runs[0].Config.ValueLR, target))
		r.left = true
		n[task]++
		name := task + "-timescales"
		if n[task] > 1 || pr.tag != "" {
			name = fmt.Sprintf("%s-timescales-%d", task, n[task])
		}
		figs = append(figs, figure{name: name, title: title, plot: p})
	}
	return figs
}

// finalKL is the mean over g's seeds of the KL at their last evaluation: the target the
// report measures each arm's steps to; false when no seed has an evaluation.
func finalKL(g Group) (float64, bool) {
	sum, n := 0.0, 0
	for _, r := range g.Runs {
		if len(r.Evals) > 0 {
			sum += r.Evals[len(r.Evals)-1].Eval.KLBits
			n++
		}
	}
	return sum / float64(max(n, 1)), n > 0
}
