package sweep

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Schedule is a task's length and cadences in a primitives budget; 0 keeps the preset's.
type Schedule struct {
	// Steps is the training steps; EvalEvery the whole-model evaluation cadence (the curve
	// the "slow" verdict reads); ProbeEvery the geometry snapshots' (the belief simplex).
	Steps, EvalEvery, ProbeEvery int
}

// Budget is a budget of `windtunnel primitives`: the preset its runs start from and the
// schedule each task replaces the preset's with (a task not listed keeps the preset's).
type Budget struct {
	Name   string
	Preset string
	Tasks  map[string]Schedule
}

// The primitives budgets (README: Primitives). quick is the quick preset's models with
// bijection 1,500 steps (the preset's 3,000 halved) and hmm 900 (of 1,500), recall at the
// preset's 10,000 (at 6,000 two of the transformer's three seeds never left the plateau), each evaluated ~12–40 times and given two geometry snapshots (the
// transformer's, with its J-lens and ablation table, costs ~100 of its bijection steps):
// ≈ 73 minutes for three seeds on two idle cores by the per-cell step costs measured for
// issue 52 at first (Mamba's step half of it), ≈ 61 with Mamba's step 1.51–1.55× faster since (two
// rounds, docs/primitives.md), ≈ 58 with recall's Mamba at the transformer's depth; timed end
// to end on idle cores, 94 (the cost model 1.58× low: subnormals among the reasons), then 78
// with subnormals flushed and the LSTM's gates vectorised (docs/primitives.md). precision is
// the laptop preset (quick's steps ten times: bijection 30,000, hmm 15,000) with recall at Paper I's 50,000 steps, not the preset's
// 100,000: long enough to tell Mamba's slow binding from none (its slow line 25,000), which
// the slow-binding study asked for, and the transformer leaves recall's plateau by ~6,000.
var budgets = []Budget{
	{Name: "quick", Preset: "quick", Tasks: map[string]Schedule{
		"bijection": {Steps: 1500, EvalEvery: 125, ProbeEvery: 750},
		"hmm":       {Steps: 900, EvalEvery: 75, ProbeEvery: 450},
		"recall":    {Steps: 10000, EvalEvery: 250, ProbeEvery: 5000},
	}},
	{Name: "precision", Preset: "laptop", Tasks: map[string]Schedule{
		"recall": {Steps: 50000, EvalEvery: 500, ProbeEvery: 5000},
	}},
}

// BudgetNames lists the budgets, quickest first.
func BudgetNames() []string {
	out := make([]string, len(budgets))
	for i, b := range budgets {
		out[i] = b.Name
	}
	return out
}

// BudgetNamed is the named budget; an unknown name is an error listing the known ones.
func BudgetNamed(name string) (Budget, error) {
	for _, b := range budgets {
		if b.Name == name {
			b.Tasks = maps.Clone(b.Tasks)
			return b, nil
		}
	}
	return Budget{}, fmt.Errorf("--budget %q: want %s", name, strings.Join(BudgetNames(), " or "))
}

// Grids is the budget's grid of each task in tasks: models × seeds 1..seeds, run with the
// preset and the task's schedule (steps > 0 replaces every task's steps, and the cadences
// are then the preset's fitted to it), each point the run `windtunnel run --task T --model M
// --preset P [--steps N --eval-every E --probe-every G] --seed S` makes.
func (b Budget) Grids(tasks, models []string, steps, seeds int) []Grid {
	var out []Grid
	for _, t := range tasks {
		g := CompareGrid([]string{t}, models, b.Preset, 0, seeds)
		seed := g.Axes[len(g.Axes)-1]
		g.Axes = g.Axes[:len(g.Axes)-1]
		s := b.Tasks[t]
		if steps > 0 {
			s = Schedule{Steps: steps}
		}
		for _, a := range []struct {
			flag string
			v    int
		}{{"steps", s.Steps}, {"eval-every", s.EvalEvery}, {"probe-every", s.ProbeEvery}} {
			if a.v > 0 {
				g.Axes = append(g.Axes, Axis{Flag: a.flag, Values: []string{strconv.Itoa(a.v)}})
			}
		}
		out = append(out, Grid{Axes: append(g.Axes, seed)})
	}
	return out
}

// JoinPoints is the points of several grids as one sweep's, numbered in order (the Slurm
// array indices); two points of the same name are an error.
func JoinPoints(parts ...[]Point) ([]Point, error) {
	var out []Point
	seen := map[string]bool{}
	for _, ps := range parts {
		for _, p := range ps {
			if seen[p.Name] {
				return nil, fmt.Errorf("sweep: two points named %s", p.Name)
			}
			seen[p.Name] = true
			p.Index = len(out)
			out = append(out, p)
		}
	}
	return out, nil
}

// Describe is the budget in words: "preset quick; bijection 1500 steps (evaluated every
// 125, a snapshot every 750), …", or "preset laptop" when it keeps the preset's schedule.
func (b Budget) Describe() string {
	parts := []string{"preset " + b.Preset}
	for _, t := range slices.Sorted(maps.Keys(b.Tasks)) {
		s := b.Tasks[t]
		parts = append(parts, fmt.Sprintf("%s %d steps (evaluated every %d, a snapshot every %d)", t, s.Steps, s.EvalEvery, s.ProbeEvery))
	}
	return strings.Join(parts, "; ")
}

// Summary is the grid a budget's sweep records in its manifest: task × model × preset ×
// seed, the schedules being in each point's flags.
func (b Budget) Summary(tasks, models []string, seeds int) Grid {
	return CompareGrid(slices.Clone(tasks), models, b.Preset, 0, seeds)
}
