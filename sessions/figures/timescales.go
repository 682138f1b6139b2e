package figures

import (
	"encoding/json"
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"

	"windtunnel/lab/runconfig"
	"windtunnel/sessions/derived"
)

// valueLRPair is two configurations of a task's transformer that differ only in the value
// projection's learning-rate multiplier, base's the smaller: Paper II's two arms.
type valueLRPair struct {
	base, arm Group
	// tag names what tells the pair from the task's other pairs ("init normal, layers 4"),
	// "" when it is the only one.
	tag string
}

// valueLRPairs finds the pairs among the groups, in the groups' order, tagged by
// derived.Labels over their baselines where a task has several.
func valueLRPairs(gs []Group) []valueLRPair {
	var pairs []valueLRPair
	for _, a := range gs {
		for _, b := range gs {
			if a.Model() != "transformer" || b.Model() != a.Model() || b.Task() != a.Task() || len(a.Runs) == 0 || len(b.Runs) == 0 {
				continue
			}
			ds, err := derived.Differences(a.Runs[0].Meta.Config, b.Runs[0].Meta.Config)
			if err != nil || len(ds) != 1 || ds[0].Field != "value_lr" || !(a.Runs[0].Config.ValueLR < b.Runs[0].Config.ValueLR) {
				continue
			}
			pairs = append(pairs, valueLRPair{base: a, arm: b})
		}
	}
	byTask := map[string][]int{}
	for i, p := range pairs {
		byTask[p.base.Task()] = append(byTask[p.base.Task()], i)
	}
	for _, idx := range byTask {
		if len(idx) < 2 {
			continue
		}
		cfgs := make([]json.RawMessage, len(idx))
		for j, i := range idx {
			cfgs[j] = pairs[i].base.Runs[0].Meta.Config
		}
		labels, err := derived.Labels(cfgs)
		for j, i := range idx {
			pairs[i].tag = fmt.Sprintf("pair %d", j+1)
			if err == nil {
				pairs[i].tag = labels[j]
			}
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
		r := hline(p, target, color.Black, fmt.Sprintf("×%g's final KL %.3f (the target)", pr.base.Runs[0].Config.ValueLR, target))
		r.note = true
		placeLabel(r, curves, p)
		stackNotes(p, []*refLine{r})
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
