package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/lab/sweep"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/figures"
	"windtunnel/sessions/reports"
	"windtunnel/sessions/runconfig"
)

// primitivesFlags are the settings of `windtunnel primitives`.
type primitivesFlags struct {
	budget  string
	seeds   int
	out     string
	jobs    int
	workers int
	run     runconfig.Flags // run's --blas
	prepare bool
	// noTrain writes the table of the runs finished, training none (a grid trained
	// elsewhere, by Slurm, or still training).
	noTrain bool
	asJSON  bool
	// A part of the grid (the slow-binding study: recall, Mamba and the LSTM, longer), and
	// the steps a run replacing the budget's.
	tasks, models string
	steps         int
}

func newPrimitivesCmd(stdout, stderr io.Writer) *cobra.Command {
	var f primitivesFlags
	c := &cobra.Command{
		Use:   "primitives",
		Short: "Measure Paper I's realisability table: four architectures × three primitives, with verdicts",
		Long: "primitives trains the transformer, Mamba, the LSTM and the per-position MLP (capacity-matched) on\n" +
			"bijection, hmm and recall, --seeds runs a cell, at --budget quick (the quick preset's models,\n" +
			"bijection 1,500 steps, hmm 900, recall 10,000: 1 h 18 min for 3 seeds on 2 idle cores, timed) or precision (the\n" +
			"laptop preset: bijection 30,000 steps, hmm 15,000, recall 50,000 as Paper I: ≈ 14 h), on the sweep engine into --out (a sweep folder:\n" +
			"running the same command again trains only what is missing, a finished run never twice; --jobs\n" +
			"runs at once, one core each by default; --prepare writes the folder without training, for `windtunnel sweep --slurm --out\n" +
			"DIR`). It then writes DIR/primitives.md and .json (each cell's bit error (a) and (b), KL and\n" +
			"accuracy as mean ± sd, the step its seed mean first passed, a ✓ / ✗ / slow verdict, the\n" +
			"context-free level and Paper I's number) and DIR/report.md with its figures in DIR/fig;\n" +
			"interrupted (Ctrl-C, `sweep cancel DIR`) or with runs left, it writes the table of the runs\n" +
			"finished so far, says it is partial, and exits 1; --no-train writes that table and trains nothing.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPrimitives(cmd.Context(), f, stdout, stderr)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.budget, "budget", "quick", "quick (the quick preset's models, bijection and hmm shorter: 1 h 18 min for 3 seeds on 2 idle cores, timed) or precision (the laptop preset, recall 50,000 steps: ≈ 14 h)")
	fs.IntVar(&f.seeds, "seeds", 3, "runs a cell, seeds 1..N")
	fs.StringVar(&f.out, "out", "", "the sweep folder (default ./runs/primitives-<budget>-<time>); give it again to continue")
	fs.IntVar(&f.jobs, "jobs", 0, "runs trained at once, the cores divided between them (0: one a core)")
	fs.IntVar(&f.workers, "workers", 0, "goroutines for kernels a run (0: the cores divided between the jobs)")
	runconfig.BindSome(fs, &f.run, "blas")
	fs.BoolVar(&f.prepare, "prepare", false, "write the sweep folder and train nothing (then windtunnel sweep --slurm --out DIR, and this command again for the table)")
	fs.BoolVar(&f.noTrain, "no-train", false, "train nothing: write the table of the runs finished so far (partial while runs are left)")
	jsonFlag(fs, &f.asJSON, "the table as one JSON object")
	fs.StringVar(&f.tasks, "tasks", "bijection,hmm,recall", "comma-separated tasks: a part of the table")
	fs.StringVar(&f.models, "models", strings.Join(arch.PaperKinds(), ","), "comma-separated models: a part of the table")
	fs.IntVar(&f.steps, "steps", 0, "training steps of every run, the preset's cadences fitted to them (default: the budget's schedule)")
	return c
}

func runPrimitives(ctx context.Context, f primitivesFlags, stdout, stderr io.Writer) error {
	b, err := sweep.BudgetNamed(f.budget)
	if err != nil {
		return usageError{Err: err}
	}
	if f.jobs == 0 {
		f.jobs = runtime.NumCPU()
	}
	if err := sweep.CheckLocal(f.jobs, f.workers); err != nil {
		return usageError{Err: err}
	}
	p, err := b.Plan(f.tasks, f.models, f.steps, f.seeds)
	if err != nil {
		return usageError{Err: err}
	}
	tasks, kinds, points := p.Tasks, p.Models, p.Points
	plan := b.Describe()
	if f.steps > 0 {
		plan = fmt.Sprintf("preset %s; %d steps a run", b.Preset, f.steps)
	}
	dir := f.out
	if dir == "" {
		dir = sweep.DefaultDir("primitives-"+f.budget, time.Now())
	}
	m, exe, err := prepareSweep(dir, p.Grid, points, "", false)
	if err != nil {
		return err
	}
	if err := m.Save(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "windtunnel primitives: %d runs (%d tasks × %d models × %d seeds, budget %s: %s) in %s\n",
		len(points), len(tasks), len(kinds), f.seeds, f.budget, plan, dir)
	if f.prepare {
		_, err := fmt.Fprintf(stdout, "prepared %s: train it with `windtunnel sweep --slurm --out %s` (or this command without --prepare)\n", dir, dir)
		return err
	}
	var trainErr error
	if !f.noTrain {
		trainErr = sweepLocal(ctx, m, exe, localOptions{jobs: min(f.jobs, len(points)), workers: f.workers, blas: f.run.Overrides.BLAS}, stderr, stderr)
	}
	runs, unscored := m.Scores()
	for _, u := range unscored {
		fmt.Fprintf(stderr, "primitives: %s\n", u)
	}
	// An interrupted or unfinished grid still writes the table of the runs finished (a
	// cell's seeds those done, the plan saying so), then ends as it ended: the precision
	// budget trains across days, and its table so far is what one reads meanwhile. With
	// --no-train the table is all that was asked: a partial one is no failure.
	ended := sweep.Ended("primitives", ctx.Err() != nil, trainErr, len(runs), len(points), true)
	if f.noTrain && len(runs) == 0 {
		return fmt.Errorf("primitives: none of the %d runs in %s has finished: no table yet", len(points), dir)
	}
	if ended != nil && len(runs) == 0 {
		return ended
	}
	partial := ended != nil
	if f.noTrain && ctx.Err() == nil {
		ended = nil
	}
	cells, err := derived.PrimitiveTable(runs, tasks, kinds)
	if err != nil {
		return err
	}
	progress := ""
	if partial {
		plan += fmt.Sprintf("; partial: %d of %d runs finished, each cell's seeds the ones done", len(runs), len(points))
		if left := derived.UntrainedCells(cells, tasks, kinds); left != "" {
			plan += "; not trained yet: " + left
		}
		progress = fmt.Sprintf("; %d of %d runs so far", len(runs), len(points))
	}
	g := primitivesGrid{tasks: tasks, models: kinds, plan: plan, progress: progress}
	if err := writePrimitives(f, b.Preset, g, dir, cells, stdout, stderr); err != nil {
		return err
	}
	return ended
}

// primitivesGrid is the grid a primitives table was planned as: its tasks and models in
// order, the budget in words (plan) and, for a partial table, how far it is (progress: "; N
// of M runs so far", "" when whole).
type primitivesGrid struct {
	tasks, models  []string
	plan, progress string
}

// writePrimitives writes the table (reports.WritePrimitives) and the report with its
// figures into dir, and prints the table (or its JSON) to stdout.
func writePrimitives(f primitivesFlags, preset string, g primitivesGrid, dir string, cells []derived.PrimitiveCell, stdout, stderr io.Writer) error {
	plan := g.plan
	title := fmt.Sprintf("Paper I's primitives, budget %s: mean bit error (a), accuracy for recall (%d seeds a cell%s)", f.budget, f.seeds, g.progress)
	figDir := filepath.Join(dir, reports.FigureDir)
	fig, err := figures.Primitives(cells, g.tasks, g.models, title, figDir, figures.Options{})
	if err != nil {
		return fmt.Errorf("primitives: %w", err)
	}
	curves, err := figures.PrimitiveCurves(cells, f.budget, figDir, figures.Options{})
	if err != nil {
		return fmt.Errorf("primitives: %w", err)
	}
	// The figures as the table links them: relative to dir, in its figure folder.
	p := reports.Primitives{Budget: f.budget, Preset: preset, Plan: plan, Seeds: f.seeds, Cells: cells,
		Figure: reports.FigureDir + "/" + filepath.Base(fig.Path)}
	figs := []string{fig.Path}
	for _, c := range curves {
		p.Curves, figs = append(p.Curves, reports.FigureDir+"/"+filepath.Base(c.Path)), append(figs, c.Path)
	}
	js, written, err := reports.WritePrimitives(dir, p)
	if err != nil {
		return err
	}
	written = append(written, figs...)
	rep, path, err := reports.Write([]string{dir}, dir, reports.Options{Figures: figures.ForReport})
	if err != nil {
		return fmt.Errorf("primitives: %w", err)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(stderr, "primitives: report skipped: %s\n", s)
	}
	fmt.Fprintf(stderr, "primitives: %s, %s\n", strings.Join(written, ", "), path)
	if f.asJSON {
		_, err = stdout.Write(js)
		return err
	}
	_, err = io.WriteString(stdout, derived.FormatPrimitives(cells))
	return err
}
