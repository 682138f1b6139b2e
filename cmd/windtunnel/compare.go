package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/lab/sweep"
	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
)

// compareFlags are the settings of `windtunnel compare`.
type compareFlags struct {
	tasks, models string
	run           runconfig.Flags // run's --preset, --steps, --blas and --workers
	seeds         int
	out           string
	asJSON        bool
	from          string
}

func newCompareCmd(stdout, stderr io.Writer) *cobra.Command {
	var f compareFlags
	c := &cobra.Command{
		Use:   "compare",
		Short: "Train every task × model pair and print Paper I's architecture table",
		Long: "compare trains each model on each task (one run per seed, each saved as a session), then prints\n" +
			"bit error (a) and (b), KL and accuracy as mean ± sd over seeds, and a pass/fail per inference\n" +
			"primitive with its threshold: belief accumulation (bijection), belief transport (hmm) and\n" +
			"random-access binding (recall), beside Paper I's verdict. The runs are a grid of `windtunnel run`\n" +
			"(--preset, --task, --model, --seed, --steps: the configurations run builds) trained by the sweep\n" +
			"engine into --out, a sweep folder: running the same compare again trains only what is missing or\n" +
			"stopped (a finished run is never trained twice), `windtunnel sweep status DIR` shows each run;\n" +
			"--from DIR rebuilds the table from a folder's sessions without training. Replay the sessions\n" +
			"side by side with `windtunnel replay A B ...`.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCompare(cmd.Context(), f, stdout, stderr)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.tasks, "tasks", "bijection,hmm,recall", "comma-separated tasks")
	fs.StringVar(&f.models, "models", strings.Join(arch.PaperKinds(), ","), "comma-separated models: "+strings.Join(arch.Kinds(), ", "))
	runconfig.BindSome(fs, &f.run, "preset", "steps", "blas", "workers")
	fs.IntVar(&f.seeds, "seeds", 1, "runs per pair, seeds 1..N")
	fs.StringVar(&f.out, "out", "", "folder for the sessions, a sweep folder (default ./runs/compare-<time>); give it again to continue")
	jsonFlag(fs, &f.asJSON, "the table as one JSON object")
	fs.StringVar(&f.from, "from", "", "rebuild the table from the finished sessions in this folder (a compare's, a sweep's or any), without training")
	return c
}

func runCompare(ctx context.Context, f compareFlags, stdout, stderr io.Writer) error {
	if f.from != "" {
		return compareFrom(f, stdout, stderr)
	}
	o := f.run.Overrides
	if err := sweep.CheckLocal(1, o.Workers); err != nil {
		return usageError{Err: err}
	}
	p, err := sweep.ComparePlan(f.tasks, f.models, f.run.Preset, o.Steps, f.seeds)
	if err != nil {
		return usageError{Err: err}
	}
	tasks, kinds, points := p.Tasks, p.Models, p.Points
	dir := f.out
	if dir == "" {
		dir = sweep.DefaultDir("compare", time.Now())
	}
	m, exe, err := prepareSweep(dir, p.Grid, points, "", false)
	if err != nil {
		return err
	}
	if err := m.Save(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "windtunnel compare: %s (%s × %s × %s, preset %s), sessions in %s\n",
		sessions.Plural(len(points), "run"), sessions.Plural(len(tasks), "task"), sessions.Plural(len(kinds), "model"), sessions.Plural(f.seeds, "seed"), f.run.Preset, sessions.SafeText(dir))
	start := time.Now()
	trainErr := sweepLocal(ctx, m, exe, localOptions{jobs: 1, workers: o.Workers, blas: o.BLAS}, stderr, stderr)
	runs, unscored := m.Scores()
	for _, u := range unscored {
		fmt.Fprintf(stderr, "compare: %s\n", sessions.SafeLines(fmt.Sprint(u)))
	}
	err = derived.WriteTable(stdout, derived.TableHead{Preset: f.run.Preset, Seeds: f.seeds, WallS: time.Since(start).Seconds(), Dir: dir},
		derived.Table(runs, tasks, kinds), f.asJSON)
	if err := sweep.Ended("compare", ctx.Err() != nil, trainErr, len(runs), len(points), false); err != nil {
		return err
	}
	return err
}

// compareFrom rebuilds the table from the sessions of a folder without training.
func compareFrom(f compareFlags, stdout, stderr io.Writer) error {
	fs, err := sweep.ReadFromSessions(f.from)
	for _, s := range fs.Skipped {
		fmt.Fprintf(stderr, "compare: %s\n", s)
	}
	if errors.Is(err, sweep.ErrNoFinished) {
		return err
	} else if err != nil {
		return usageError{Err: err}
	}
	return derived.WriteTable(stdout, derived.TableHead{Preset: "from sessions", Seeds: fs.Seeds, WallS: fs.WallS, Dir: f.from}, fs.Cells, f.asJSON)
}
