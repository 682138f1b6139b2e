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
	"windtunnel/lab/runconfig"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"

	"github.com/spf13/cobra"

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
			"random-access binding (recall), beside Paper I's verdict. Sessions already in --out are reused\n" +
			"(finished) or resumed (unfinished), so an interrupted compare continues where it stopped;\n" +
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
	fs.StringVar(&f.preset, "preset", runconfig.PresetQuick, "sizes and schedule: "+strings.Join(runconfig.PresetNames(), ", "))
	fs.IntVar(&f.seeds, "seeds", 1, "runs per pair, seeds 1..N")
	fs.IntVar(&f.steps, "steps", 0, "training steps per run (default: the preset's)")
	fs.StringVar(&f.out, "out", "", "folder for the sessions (default ./runs/compare-<time>)")
	blasFlag(fs, &f.blas)
	fs.IntVar(&f.workers, "workers", 0, "goroutines for kernels (0: all cores)")
	jsonFlag(fs, &f.asJSON, "the table as one JSON object")
	fs.StringVar(&f.from, "from", "", "rebuild the table from the finished sessions in this folder, without training")
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
func compareConfigs(f compareFlags) (tasks, kinds []string, cfgs []runconfig.Config, err error) {
	if tasks, err = parseList("tasks", f.tasks, tunnels.Names()); err != nil {
		return nil, nil, nil, err
	}
	if kinds, err = parseList("models", f.models, arch.Kinds()); err != nil {
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
				c, err := runconfig.Preset(f.preset, task)
				if err != nil {
					return nil, nil, nil, usagef("--preset %q: want %s", f.preset, strings.Join(runconfig.PresetNames(), ", "))
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
	if f.from != "" {
		return compareFrom(f, stdout, stderr)
	}
	tasks, kinds, cfgs, err := compareConfigs(f)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext(ctx)
	defer cancel()
	dir := f.out
	if dir == "" {
		dir = filepath.Join("runs", "compare-"+time.Now().Format("20060102-150405"))
	}
	if err := os.MkdirAll(dir, sessions.DirMode); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	fmt.Fprintf(stderr, "windtunnel compare: %d runs (%d tasks × %d models × %d seeds, preset %s), sessions in %s\n",
		len(cfgs), len(tasks), len(kinds), f.seeds, f.preset, dir)
	start := time.Now()
	var runs []derived.RunScore
	eta := newCompareETA()
	for i, cfg := range cfgs {
		if ctx.Err() != nil {
			break
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-%s-s%d.wtlab", cfg.Task, cfg.Model, cfg.Seed))
		tag := fmt.Sprintf("[%d/%d] %s %s seed %d", i+1, len(cfgs), cfg.Task, cfg.Model, cfg.Seed)
		r, reused, err := compareRun(ctx, cfg, path, tag, stderr)
		if err != nil {
			return fmt.Errorf("compare: %s %s seed %d: %w", cfg.Task, cfg.Model, cfg.Seed, err)
		}
		if !reused && r.Steps < cfg.Steps {
			// Stopped part-way (a signal): its session resumes on the next call, and a
			// partial score does not belong in the table.
			fmt.Fprintf(stderr, "%s: stopped at step %d of %d, not scored (run the same command again to resume it)\n", tag, r.Steps, cfg.Steps)
			break
		}
		how := ""
		if reused {
			how = " (reused " + path + ")"
		}
		fmt.Fprintf(stderr, "%s: bit error (a) %.4f (b) %.4f, KL %.4f, accuracy %.3f, %d params, %.1f s%s\n",
			tag, r.Scores.BitErrorPosition, r.Scores.BitErrorSample, r.Scores.KLBits, r.Scores.Accuracy, r.Params, r.WallS, how)
		runs = append(runs, r)
		eta.add(r)
		if left := cfgs[i+1:]; len(left) > 0 {
			if d, ok := eta.remaining(left); ok {
				fmt.Fprintf(stderr, "compare: %d runs left, about %s (done near %s)\n", len(left), d.Round(time.Second), time.Now().Add(d).Format("15:04"))
			}
		}
	}
	err = printCompare(stdout, f.preset, f.seeds, time.Since(start).Seconds(), dir, derived.Table(runs, tasks, kinds), f.asJSON)
	if ctx.Err() != nil && err == nil {
		err = fmt.Errorf("compare: interrupted after %d of %d runs (run the same command again to continue)", len(runs), len(cfgs))
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
		}{preset, seeds, round(wallS, 1), dir, cells})
	}
	seedsLabel, _ := derived.TableSeeds(cells) // from the runs of the cells, not the flag
	fmt.Fprintf(w, "preset %s, seeds %s, %.0f s, sessions in %s\n", preset, seedsLabel, wallS, dir)
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
		fmt.Fprintf(stderr, "compare: skipped: %v\n", e)
	}
	var runs []derived.RunScore
	var tasks, kinds []string
	seen := map[string]bool{}
	seeds := 0
	for _, sr := range srs {
		if !sr.Done {
			fmt.Fprintf(stderr, "compare: skipped %s: not finished (%s at step %d of %d)\n", sr.Score.Session, sr.State, sr.Score.Steps, sr.Config.Steps)
			continue
		}
		runs = append(runs, sr.Score)
		if !seen["t"+sr.Score.Task] {
			seen["t"+sr.Score.Task] = true
			tasks = append(tasks, sr.Score.Task)
		}
		if !seen["m"+sr.Score.Model] {
			seen["m"+sr.Score.Model] = true
			kinds = append(kinds, sr.Score.Model)
		}
		seeds = max(seeds, int(sr.Score.Seed))
	}
	if len(runs) == 0 {
		return fmt.Errorf("compare --from %s: no finished sessions", f.from)
	}
	tasks = derived.Ordered(tasks, tunnels.Names())
	kinds = derived.Ordered(kinds, arch.Kinds())
	wall := 0.0
	for _, r := range runs {
		wall += r.WallS
	}
	return printCompare(stdout, "from sessions", seeds, wall, f.from, derived.Table(runs, tasks, kinds), f.asJSON)
}

// compareETA estimates the wall time of the runs left from the seconds per step of the
// runs done: of the same task and model where there is one, else of all of them.
type compareETA struct {
	perStep map[string]float64 // task/model → seconds per step
	all     []float64
}

func newCompareETA() *compareETA { return &compareETA{perStep: map[string]float64{}} }

func (e *compareETA) add(r derived.RunScore) {
	if r.Steps <= 0 || r.WallS <= 0 {
		return
	}
	v := r.WallS / float64(r.Steps)
	e.perStep[r.Task+"/"+r.Model] = v
	e.all = append(e.all, v)
}

// remaining estimates the wall time of the runs left; false before any run was timed.
func (e *compareETA) remaining(left []runconfig.Config) (time.Duration, bool) {
	if len(e.all) == 0 {
		return 0, false
	}
	mean := 0.0
	for _, v := range e.all {
		mean += v
	}
	mean /= float64(len(e.all))
	s := 0.0
	for _, c := range left {
		v, ok := e.perStep[c.Task+"/"+c.Model]
		if !ok {
			v = mean
		}
		s += v * float64(c.Steps)
	}
	return time.Duration(s * float64(time.Second)), true
}

// compareRun trains one configuration into its own session. A finished session of the
// same run already at path is reused (reused is true); an unfinished one is resumed from
// its last checkpoint.
func compareRun(ctx context.Context, cfg runconfig.Config, path, tag string, stderr io.Writer) (r derived.RunScore, reused bool, err error) {
	var st *runSetup
	if _, serr := os.Stat(path); serr == nil {
		sr, err := derived.ReadSessionRun(path)
		switch {
		case err == nil && sr.Done && sameRun(sr.Config, cfg):
			return sr.Score, true, nil
		case err == nil && !sameRun(sr.Config, cfg):
			return r, false, fmt.Errorf("%s holds a different run (%s %s seed %d, %d steps): choose another --out", path, sr.Config.Task, sr.Config.Model, sr.Config.Seed, sr.Config.Steps)
		}
		fmt.Fprintf(stderr, "%s: resuming %s\n", tag, path)
		if st, err = resumeSetup(path, func(c *runconfig.Config) { c.BLAS, c.Workers = cfg.BLAS, cfg.Workers }); err != nil {
			return r, false, err
		}
	} else {
		fmt.Fprintf(stderr, "%s (%d steps)\n", tag, cfg.Steps)
		tr, err := newTrainer(cfg)
		if err != nil {
			return r, false, err
		}
		meta, err := runMeta(cfg, tr, path)
		if err != nil {
			tr.Close()
			return r, false, err
		}
		w, err := sessions.Create(path, meta, sessions.WriterOptions{})
		if err != nil {
			tr.Close()
			return r, false, err
		}
		st = &runSetup{cfg: cfg, tr: tr, w: w, meta: meta}
	}
	tr := st.tr
	defer tr.Close()
	tr.Attach(st.w)
	prog := newProgressLine(ctx, cfg.Steps, stderr)
	tr.Attach(prog)
	res, runErr := tr.Run(ctx)
	prog.Close()
	if err := st.w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return r, false, runErr
	}
	key, err := derived.KeyOf(cfg)
	if err != nil {
		return r, false, err
	}
	return derived.RunScore{Task: cfg.Task, Model: cfg.Model, Seed: cfg.Seed, Params: tr.Model().NumParams(), Steps: res.Steps,
		WallS: res.WallS, Scores: res.Scores, Session: path, Key: key}, false, nil
}

// sameRun reports whether a session's configuration is the planned run (task, model, seed,
// steps and sizes; the BLAS and worker count may differ).
func sameRun(a, b runconfig.Config) bool {
	a.BLAS, a.Workers, b.BLAS, b.Workers = "", 0, "", 0
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
