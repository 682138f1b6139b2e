package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/lab/sweep"
	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
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

// parseList splits a comma list and checks each entry against the allowed values
// (sweep.ParseList): a bad entry is a usage error.
func parseList(flag, s string, allowed []string) ([]string, error) {
	out, err := sweep.ParseList(flag, s, allowed)
	if err != nil {
		return nil, usageError{err}
	}
	return out, nil
}

// compareGrid checks the lists, the seeds, the preset and the steps, and builds the grid
// of a comparison (sweep.CompareGrid) and every point's configuration (sweepPoints) before
// anything is trained.
func compareGrid(taskList, modelList, preset string, steps, seeds int) (tasks, kinds []string, points []sweep.Point, g sweep.Grid, err error) {
	if tasks, err = parseList("tasks", taskList, tunnels.Names()); err != nil {
		return
	}
	if kinds, err = parseList("models", modelList, arch.Kinds()); err != nil {
		return
	}
	if err = sweep.CheckSeeds(seeds); err == nil {
		err = runconfig.CheckPreset(preset)
	}
	if err == nil && steps < 0 {
		err = fmt.Errorf("--steps %d out of range: want ≥ 1 (or 0 for the preset's)", steps)
	}
	if err != nil {
		err = usageError{err}
		return
	}
	g = sweep.CompareGrid(tasks, kinds, preset, steps, seeds)
	points, err = sweepPoints(g)
	return
}

func runCompare(ctx context.Context, f compareFlags, stdout, stderr io.Writer) error {
	if f.from != "" {
		return compareFrom(f, stdout, stderr)
	}
	o := f.run.Overrides
	if err := sweep.CheckLocal(1, o.Workers); err != nil {
		return usageError{err}
	}
	tasks, kinds, points, g, err := compareGrid(f.tasks, f.models, f.run.Preset, o.Steps, f.seeds)
	if err != nil {
		return err
	}
	dir := f.out
	if dir == "" {
		dir = sweep.DefaultDir("compare", time.Now())
	}
	m, exe, err := prepareSweep(dir, g, points, "", false)
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
	err = printCompare(stdout, f.run.Preset, f.seeds, time.Since(start).Seconds(), dir, derived.Table(runs, tasks, kinds), f.asJSON)
	switch {
	case ctx.Err() != nil || errors.Is(trainErr, context.Canceled):
		return fmt.Errorf("compare: interrupted after %d of %d runs (run the same command again to continue)", len(runs), len(points))
	case trainErr != nil:
		return fmt.Errorf("compare: %w", trainErr)
	}
	return err
}

// printCompare prints the table (or one JSON object).
func printCompare(w io.Writer, preset string, seeds int, wallS float64, dir string, cells []derived.Cell, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(struct {
			Preset string         `json:"preset"`
			Seeds  int            `json:"seeds"`
			WallS  float64        `json:"wall_s"`
			Dir    string         `json:"sessions"`
			Cells  []derived.Cell `json:"cells"`
		}{preset, seeds, math.Round(wallS*10) / 10, dir, cells})
	}
	seedsLabel, _ := derived.TableSeeds(cells) // from the runs of the cells, not the flag
	fmt.Fprintf(w, "preset %s, seeds %s, %.0f s, sessions in %s\n", preset, seedsLabel, wallS, sessions.SafeText(dir))
	_, err := io.WriteString(w, derived.FormatTable(cells))
	return err
}

// compareFrom rebuilds the table from the sessions of a folder without training.
func compareFrom(f compareFlags, stdout, stderr io.Writer) error {
	srs, errs, err := derived.ReadSessionDir(f.from)
	if err != nil {
		return usageError{fmt.Errorf("--from: %w", err)}
	}
	for _, e := range errs {
		fmt.Fprintf(stderr, "compare: skipped: %s\n", sessions.SafeLines(fmt.Sprint(e)))
	}
	fin := derived.Gather(srs)
	for _, sr := range fin.Unfinished {
		fmt.Fprintf(stderr, "compare: skipped %s: %s\n", sessions.SafeText(sr.Score.Session), sessions.SafeText(sr.Unfinished()))
	}
	if len(fin.Runs) == 0 {
		return fmt.Errorf("compare --from %s: no finished sessions", f.from)
	}
	tasks := derived.Ordered(fin.Tasks, tunnels.Names())
	kinds := derived.Ordered(fin.Models, arch.Kinds())
	return printCompare(stdout, "from sessions", fin.Seeds, fin.WallS, f.from, derived.Table(fin.Runs, tasks, kinds), f.asJSON)
}
