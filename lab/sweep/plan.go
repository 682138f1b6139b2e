package sweep

import (
	"context"
	"errors"
	"fmt"

	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

// Plan is what a command trains on the sweep engine before anything is trained: the tasks
// and models it lists, in order, every point with its configuration checked, and the grid
// its manifest records. Every error making one is the command line's.
type Plan struct {
	Tasks, Models []string
	Points        []Point
	Grid          Grid
}

// ComparePlan checks the lists of `windtunnel compare` (tasks of tunnels.Names, models of
// arch.Kinds: ParseList), the seeds, the preset and the steps (0: the preset's), and builds
// the grid of the comparison (CompareGrid) and every point's configuration
// (Grid.CheckedPoints).
func ComparePlan(taskList, modelList, preset string, steps, seeds int) (Plan, error) {
	var p Plan
	var err error
	if p.Tasks, err = ParseList("tasks", taskList, tunnels.Names()); err != nil {
		return p, err
	}
	if p.Models, err = ParseList("models", modelList, arch.Kinds()); err != nil {
		return p, err
	}
	if err = CheckSeeds(seeds); err == nil {
		err = runconfig.CheckPreset(preset)
	}
	if err == nil && steps < 0 {
		err = fmt.Errorf("--steps %d out of range: want ≥ 1 (or 0 for the preset's)", steps)
	}
	if err != nil {
		return p, err
	}
	p.Grid = CompareGrid(p.Tasks, p.Models, preset, steps, seeds)
	p.Points, err = p.Grid.CheckedPoints()
	return p, err
}

// Plan is the budget's plan of `windtunnel primitives` for the tasks and models listed
// (checked as ComparePlan checks them): each task's points (Grids, run's flags checked)
// joined into one sweep, and the grid its manifest records (Summary); steps > 0 replaces
// every task's schedule.
func (b Budget) Plan(taskList, modelList string, steps, seeds int) (Plan, error) {
	p, err := ComparePlan(taskList, modelList, b.Preset, steps, seeds)
	if err != nil {
		return Plan{}, err
	}
	var parts [][]Point
	for _, tg := range b.Grids(p.Tasks, p.Models, steps, seeds) {
		ps, err := tg.CheckedPoints()
		if err != nil {
			return Plan{}, err
		}
		parts = append(parts, ps)
	}
	if p.Points, err = JoinPoints(parts...); err != nil {
		return Plan{}, err
	}
	p.Grid = b.Summary(p.Tasks, p.Models, seeds)
	return p, nil
}

// Request is the grid a `windtunnel sweep` command line asks for: a sweep file (File, ""
// for none), its --set flags, and --tasks, --models (comma lists) and --seeds, each read
// only when given; Dir is --out, the sweep continued when no grid is given.
type Request struct {
	File                                string
	Sets                                []string
	Tasks, Models                       string
	Seeds                               int
	TasksGiven, ModelsGiven, SeedsGiven bool
	Dir                                 string
}

// Plan is the sweep the request trains: its grid (Assemble) and every point with its
// configuration checked (Grid.CheckedPoints: a flag run does not have, a value run refuses,
// or two points that train the same run are errors); with no grid given, the sweep recorded
// in Dir, its points as recorded (CheckPoints). Every error is the command line's.
func (r Request) Plan() (Grid, []Point, error) {
	var tasks, models []string
	var err error
	if r.TasksGiven {
		if tasks, err = ParseList("tasks", r.Tasks, tunnels.Names()); err != nil {
			return Grid{}, nil, err
		}
	}
	if r.ModelsGiven {
		if models, err = ParseList("models", r.Models, arch.Kinds()); err != nil {
			return Grid{}, nil, err
		}
	}
	seeds := 0
	if r.SeedsGiven {
		if err := CheckSeeds(r.Seeds); err != nil {
			return Grid{}, nil, fmt.Errorf("sweep: %w", err)
		}
		seeds = r.Seeds
	}
	g, given, err := Assemble(r.File, r.Sets, tasks, models, seeds)
	if err != nil {
		return Grid{}, nil, err
	}
	if given {
		points, err := g.CheckedPoints()
		return g, points, err
	}
	// No grid: continue the sweep in Dir, its points as recorded.
	if r.Dir == "" {
		return Grid{}, nil, fmt.Errorf("sweep: empty grid: give --set FLAG=V1,V2, --tasks, --models, --seeds or a sweep file (or --out DIR of a sweep to continue it)")
	}
	old, err := Read(r.Dir)
	if err != nil {
		return Grid{}, nil, fmt.Errorf("sweep: empty grid, and --out %s is not a sweep to continue: %w", r.Dir, err)
	}
	points, err := CheckPoints(old.Points)
	return old.Grid, points, err
}

// Ended is how a command that trained a plan's points on this machine (compare,
// primitives) ended, as it says it: interrupted (cancelled, or training's error a
// cancellation) after done of total runs, training's own error, or, when every run must have
// finished (all), the runs left; nil when it goes on to its table.
func Ended(command string, cancelled bool, trainErr error, done, total int, all bool) error {
	switch {
	case cancelled || errors.Is(trainErr, context.Canceled):
		return fmt.Errorf("%s: interrupted after %d of %d runs (run the same command again to continue)", command, done, total)
	case trainErr != nil:
		return fmt.Errorf("%s: %w", command, trainErr)
	case all && done < total:
		return fmt.Errorf("%s: %d of %d runs finished (run the same command again to continue)", command, done, total)
	}
	return nil
}
