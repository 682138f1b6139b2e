package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/lab/sweep"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/reports"
	"windtunnel/sessions/runconfig"
)

// The budgets of `windtunnel primitives` and the preset each trains with.
var primitiveBudgets = map[string]string{"quick": runconfig.PresetQuick, "precision": runconfig.PresetLaptop}

// primitivesFlags are the settings of `windtunnel primitives`.
type primitivesFlags struct {
	budget  string
	seeds   int
	out     string
	jobs    int
	workers int
	blas    string
	prepare bool
	asJSON  bool
	// Hidden, for tests and partial tables: the grid's tasks and models, and the steps.
	tasks, models string
	steps         int
}

func newPrimitivesCmd(stdout, stderr io.Writer) *cobra.Command {
	var f primitivesFlags
	c := &cobra.Command{
		Use:   "primitives",
		Short: "Measure Paper I's realisability table: four architectures × three primitives, with verdicts",
		Long: "primitives trains the transformer, Mamba, the LSTM and the per-position MLP (capacity-matched) on\n" +
			"bijection, hmm and recall, --seeds runs a cell, at --budget quick (the quick preset) or precision\n" +
			"(the laptop preset: ten times quick's steps), on the sweep engine into --out (a sweep folder:\n" +
			"running the same command again trains only what is missing, a finished run never twice; --jobs\n" +
			"runs at once; --prepare writes the folder without training, for `windtunnel sweep --slurm --out\n" +
			"DIR`). It then writes DIR/primitives.md and .json (each cell's bit error (a) and (b), KL and\n" +
			"accuracy as mean ± sd, the step its seed mean first passed, a ✓ / ✗ / slow verdict, the\n" +
			"context-free level and Paper I's number) and DIR/report.md with its figures in DIR/fig.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPrimitives(cmd.Context(), f, stdout, stderr)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.budget, "budget", "quick", "quick (the quick preset) or precision (the laptop preset)")
	fs.IntVar(&f.seeds, "seeds", 3, "runs a cell, seeds 1..N")
	fs.StringVar(&f.out, "out", "", "the sweep folder (default ./runs/primitives-<budget>-<time>); give it again to continue")
	fs.IntVar(&f.jobs, "jobs", 1, "runs trained at once (the cores are divided between them)")
	fs.IntVar(&f.workers, "workers", 0, "goroutines for kernels a run (0: the cores divided between the jobs)")
	blasFlag(fs, &f.blas)
	fs.BoolVar(&f.prepare, "prepare", false, "write the sweep folder and train nothing (then windtunnel sweep --slurm --out DIR, and this command again for the table)")
	jsonFlag(fs, &f.asJSON, "the table as one JSON object")
	fs.StringVar(&f.tasks, "tasks", "bijection,hmm,recall", "comma-separated tasks")
	fs.StringVar(&f.models, "models", strings.Join(arch.PaperKinds(), ","), "comma-separated models")
	fs.IntVar(&f.steps, "steps", 0, "training steps a run (default: the budget's)")
	for _, n := range []string{"tasks", "models", "steps"} {
		_ = fs.MarkHidden(n) // the table is the paper's grid; these make a smaller one for tests
	}
	return c
}

func runPrimitives(ctx context.Context, f primitivesFlags, stdout, stderr io.Writer) error {
	preset, ok := primitiveBudgets[f.budget]
	if !ok {
		return usagef("--budget %q: want quick or precision", f.budget)
	}
	if f.jobs < 1 || f.jobs > 256 {
		return usagef("--jobs %d out of range: want 1..256", f.jobs)
	}
	tasks, kinds, points, g, err := compareGrid(compareFlags{tasks: f.tasks, models: f.models, preset: preset,
		seeds: f.seeds, steps: f.steps, workers: f.workers})
	if err != nil {
		return err
	}
	dir := f.out
	if dir == "" {
		dir = sweep.DefaultDir("primitives-"+f.budget, time.Now())
	}
	m, exe, err := prepareSweep(dir, g, points, "", false)
	if err != nil {
		return err
	}
	if err := m.Save(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "windtunnel primitives: %d runs (%d tasks × %d models × %d seeds, budget %s: preset %s) in %s\n",
		len(points), len(tasks), len(kinds), f.seeds, f.budget, preset, dir)
	if f.prepare {
		_, err := fmt.Fprintf(stdout, "prepared %s: train it with `windtunnel sweep --slurm --out %s` (or this command without --prepare)\n", dir, dir)
		return err
	}
	workers := f.workers
	if workers == 0 {
		workers = max(1, runtime.NumCPU()/f.jobs)
	}
	trainErr := sweepLocal(ctx, m, exe, localOptions{jobs: f.jobs, workers: workers, blas: f.blas}, stderr, stderr)
	runs, unscored := m.Scores()
	for _, u := range unscored {
		fmt.Fprintf(stderr, "primitives: %s\n", u)
	}
	switch {
	case ctx.Err() != nil || errors.Is(trainErr, context.Canceled):
		return fmt.Errorf("primitives: interrupted after %d of %d runs (run the same command again to continue)", len(runs), len(points))
	case trainErr != nil:
		return fmt.Errorf("primitives: %w", trainErr)
	case len(runs) < len(points):
		return fmt.Errorf("primitives: %d of %d runs finished (run the same command again to continue)", len(runs), len(points))
	}
	cells, err := derived.PrimitiveTable(runs, tasks, kinds)
	if err != nil {
		return err
	}
	return writePrimitives(f, preset, dir, cells, stdout, stderr)
}

// writePrimitives writes the table (reports.WritePrimitives) and the report with its
// figures into dir, and prints the table (or its JSON) to stdout.
func writePrimitives(f primitivesFlags, preset, dir string, cells []derived.PrimitiveCell, stdout, stderr io.Writer) error {
	js, written, err := reports.WritePrimitives(dir, reports.Primitives{Budget: f.budget, Preset: preset, Seeds: f.seeds, Cells: cells})
	if err != nil {
		return err
	}
	rep, path, err := reports.Write([]string{dir}, dir, reports.Options{Figures: reportFigures})
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
