package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/lab"
	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// compareFlags are the settings of `windtunnel compare`.
type compareFlags struct {
	tasks, models string
	preset        string
	seeds         int
	steps         int
	out           string
	blas          string
	workers       int
	asJSON        bool
}

func newCompareCmd(stdout, stderr io.Writer) *cobra.Command {
	var f compareFlags
	c := &cobra.Command{
		Use:   "compare",
		Short: "Train every task × model pair and print Paper I's architecture table",
		Long: "compare trains each model on each task (one run per seed, each saved as a session), then prints\n" +
			"bit error (a) and (b), KL and accuracy as mean ± sd over seeds, and a pass/fail per inference\n" +
			"primitive with its threshold: belief accumulation (bijection), belief transport (hmm) and\n" +
			"random-access binding (recall). Replay the sessions side by side with `windtunnel replay A B ...`.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCompare(cmd.Context(), f, stdout, stderr)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.tasks, "tasks", "bijection,hmm,recall", "comma-separated tasks")
	fs.StringVar(&f.models, "models", strings.Join(models.Kinds(), ","), "comma-separated models")
	fs.StringVar(&f.preset, "preset", lab.PresetQuick, "sizes and schedule: quick or paper")
	fs.IntVar(&f.seeds, "seeds", 1, "runs per pair, seeds 1..N")
	fs.IntVar(&f.steps, "steps", 0, "training steps per run (default: the preset's)")
	fs.StringVar(&f.out, "out", "", "folder for the sessions (default ./runs/compare-<time>)")
	blasFlag(fs, &f.blas)
	fs.IntVar(&f.workers, "workers", 0, "goroutines for kernels (0: all cores)")
	jsonFlag(fs, &f.asJSON, "the table as one JSON object")
	return c
}

// parseList splits a comma list and checks each entry against the allowed values.
func parseList(flag, s string, allowed []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == p
		}
		if !ok {
			return nil, usagef("--%s %q: want a comma list of %s", flag, p, strings.Join(allowed, ", "))
		}
		if !seen[p] {
			out = append(out, p)
			seen[p] = true
		}
	}
	if len(out) == 0 {
		return nil, usagef("--%s is empty: want a comma list of %s", flag, strings.Join(allowed, ", "))
	}
	return out, nil
}

// compareConfigs builds and validates every run's configuration before any training starts.
func compareConfigs(f compareFlags) (tasks, kinds []string, cfgs []lab.Config, err error) {
	if tasks, err = parseList("tasks", f.tasks, tunnels.Names()); err != nil {
		return nil, nil, nil, err
	}
	if kinds, err = parseList("models", f.models, models.Kinds()); err != nil {
		return nil, nil, nil, err
	}
	if f.seeds < 1 || f.seeds > 100 {
		return nil, nil, nil, usagef("--seeds %d out of range: want 1..100", f.seeds)
	}
	if f.steps < 0 {
		return nil, nil, nil, usagef("--steps %d out of range: want ≥ 1 (or 0 for the preset's)", f.steps)
	}
	for _, task := range tasks {
		for _, model := range kinds {
			for seed := 1; seed <= f.seeds; seed++ {
				c, err := lab.Preset(f.preset, task)
				if err != nil {
					return nil, nil, nil, usagef("--preset %q: want quick or paper", f.preset)
				}
				c.Model, c.Seed, c.BLAS, c.Workers = model, uint64(seed), f.blas, f.workers
				if f.steps > 0 {
					c.Steps = f.steps
				}
				if err := c.Validate(); err != nil {
					return nil, nil, nil, flagError(err)
				}
				cfgs = append(cfgs, c)
			}
		}
	}
	return tasks, kinds, cfgs, nil
}

func runCompare(ctx context.Context, f compareFlags, stdout, stderr io.Writer) error {
	tasks, models, cfgs, err := compareConfigs(f)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext(ctx)
	defer cancel()
	dir := f.out
	if dir == "" {
		dir = filepath.Join("runs", "compare-"+time.Now().Format("20060102-150405"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	fmt.Fprintf(stderr, "windtunnel compare: %d runs (%d tasks × %d models × %d seeds, preset %s), sessions in %s\n",
		len(cfgs), len(tasks), len(models), f.seeds, f.preset, dir)
	start := time.Now()
	var runs []lab.RunScore
	for i, cfg := range cfgs {
		if ctx.Err() != nil {
			break
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-%s-s%d.wtlab", cfg.Task, cfg.Model, cfg.Seed))
		fmt.Fprintf(stderr, "[%d/%d] %s %s seed %d (%d steps)\n", i+1, len(cfgs), cfg.Task, cfg.Model, cfg.Seed, cfg.Steps)
		r, err := compareRun(ctx, cfg, path, stderr)
		if err != nil {
			return fmt.Errorf("compare: %s %s seed %d: %w", cfg.Task, cfg.Model, cfg.Seed, err)
		}
		fmt.Fprintf(stderr, "[%d/%d] %s %s seed %d: bit error (a) %.4f, KL %.4f, accuracy %.3f, %d params, %.1f s\n",
			i+1, len(cfgs), cfg.Task, cfg.Model, cfg.Seed, r.Scores.BitErrorPosition, r.Scores.KLBits, r.Scores.Accuracy, r.Params, r.WallS)
		runs = append(runs, r)
	}
	cells := lab.Table(runs, tasks, models)
	if f.asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			Preset string     `json:"preset"`
			Seeds  int        `json:"seeds"`
			WallS  float64    `json:"wall_s"`
			Dir    string     `json:"sessions"`
			Cells  []lab.Cell `json:"cells"`
		}{f.preset, f.seeds, round(time.Since(start).Seconds(), 1), dir, cells})
	}
	fmt.Fprintf(stdout, "preset %s, seeds 1..%d, %d runs in %.0f s, sessions in %s\n", f.preset, f.seeds, len(runs), time.Since(start).Seconds(), dir)
	_, err = io.WriteString(stdout, lab.FormatTable(cells))
	if ctx.Err() != nil && err == nil {
		err = fmt.Errorf("compare: interrupted after %d of %d runs", len(runs), len(cfgs))
	}
	return err
}

// compareRun trains one configuration into its own session.
func compareRun(ctx context.Context, cfg lab.Config, path string, stderr io.Writer) (lab.RunScore, error) {
	tr, err := lab.New(cfg)
	if err != nil {
		return lab.RunScore{}, err
	}
	defer tr.Close()
	meta, err := runMeta(cfg, tr, path)
	if err != nil {
		return lab.RunScore{}, err
	}
	w, err := sessions.Create(path, meta, sessions.WriterOptions{})
	if err != nil {
		return lab.RunScore{}, err
	}
	tr.Attach(w)
	prog := newProgressLine(ctx, cfg.Steps, stderr)
	tr.Attach(prog)
	res, runErr := tr.Run(ctx)
	prog.Close()
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return lab.RunScore{}, runErr
	}
	return lab.RunScore{Task: cfg.Task, Model: cfg.Model, Seed: cfg.Seed, Params: tr.Model().NumParams(), Steps: res.Steps,
		WallS: res.WallS, Scores: res.Scores, Session: path}, nil
}
