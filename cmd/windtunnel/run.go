package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/diagnostics"
	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// runFlags are the flags of `windtunnel run`.
type runFlags struct {
	tf          tunnelFlags
	preset      string
	model       string
	headless    bool
	steps       int
	batch       int
	seed        uint64
	lr          float64
	warmup      int
	wd          float64
	clip        float64
	valueLR     float64
	qkLR        float64
	evalEvery   int
	probe       int
	probeEvery  int
	geometryN   int
	layers      int
	heads       int
	width       int
	mlpHidden   int
	target      string
	blas        string
	device      string
	workers     int
	predictions string
	mlpInput    string
	precision   string
	out         string
	resume      string
	ckptEvery   int
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	f.tf.register(fs, "bijection")
	fs.StringVar(&f.preset, "preset", lab.PresetQuick, "starting configuration: quick (CPU, minutes) or paper (the paper's sizes)")
	fs.StringVar(&f.model, "model", "transformer", "network: transformer, or a baseline capacity-matched to it: mlp, lstm or mamba")
	fs.BoolVar(&f.headless, "headless", false, "no TUI: a progress line on a terminal, log lines otherwise, a JSON summary on stdout (implied when stdin or stdout is not a terminal)")
	fs.IntVar(&f.steps, "steps", 0, "training steps (default: the preset's)")
	fs.IntVar(&f.batch, "batch", 0, "sequences per step (default: the preset's)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed for data, probe set and initialisation")
	fs.Float64Var(&f.lr, "lr", 0, "peak learning rate (default: the preset's)")
	fs.IntVar(&f.warmup, "warmup", 0, "linear warm-up steps (default: the preset's)")
	fs.Float64Var(&f.wd, "weight-decay", 0, "AdamW decoupled weight decay (default: the preset's)")
	fs.Float64Var(&f.clip, "clip", 1, "global gradient-norm clip (0 disables)")
	fs.Float64Var(&f.valueLR, "value-lr", 1, "learning-rate multiplier for value projections")
	fs.Float64Var(&f.qkLR, "qk-lr", 1, "learning-rate multiplier for query/key projections")
	fs.IntVar(&f.evalEvery, "eval-every", 0, "evaluate on the probe set every N steps (default: the preset's)")
	fs.IntVar(&f.probe, "probe", 0, "held-out probe sequences (default: the preset's)")
	fs.IntVar(&f.probeEvery, "probe-every", 0, "geometry snapshot (focus, keys, QK map, value manifold, ablation table) every N steps, 0 off (default: the preset's)")
	fs.IntVar(&f.geometryN, "geometry-n", 0, "probe sequences the geometry and ablation table use (default: the preset's)")
	fs.IntVar(&f.layers, "layers", 0, "transformer layers (default: the preset's)")
	fs.IntVar(&f.heads, "heads", 0, "attention heads per layer (default: the preset's)")
	fs.IntVar(&f.width, "width", 0, "transformer width d (default: the preset's)")
	fs.IntVar(&f.mlpHidden, "mlp-hidden", 0, "transformer MLP hidden width (default 4·width)")
	fs.StringVar(&f.target, "target", "", "training target: sampled or posterior (default: the task's)")
	fs.StringVar(&f.device, "device", "cpu", "where matrix products run: cpu or cuda (NVIDIA driver and cuBLAS loaded at run time)")
	fs.StringVar(&f.blas, "blas", "auto", "matrix multiply: auto (OpenBLAS if found, else gonum), openblas or gonum")
	fs.IntVar(&f.workers, "workers", 0, "goroutines for kernels (default: all cores)")
	fs.StringVar(&f.mlpInput, "mlp-input", "prefix", "MLP baseline input: prefix (one-hot prefix up to the scored position) or token (the scored token alone)")
	fs.StringVar(&f.precision, "precision", "float32", "arithmetic: float32 (fast kernels) or float64 (exact, for checks)")
	fs.StringVar(&f.predictions, "predictions", "", "write the probe set with the model's distributions to this JSON Lines file")
	fs.StringVar(&f.out, "out", "", "session file to write (default ./runs/<time>-<task>-<model>.wtlab)")
	fs.StringVar(&f.resume, "resume", "", "continue the session FILE from its last checkpoint (model, optimiser, schedule and data stream)")
	fs.IntVar(&f.ckptEvery, "checkpoint-every", 0, "save parameters and optimiser state every N steps (default: the preset's; 0 with the flag: only at the end)")
}

// resumeFlags are the flags that may accompany --resume; the rest come from the session.
var resumeFlags = map[string]bool{"resume": true, "headless": true, "steps": true, "workers": true, "blas": true, "predictions": true, "device": true}

// runSetup is a run ready to start: its trainer and the session it writes.
type runSetup struct {
	cfg  lab.Config
	tr   *lab.Trainer
	w    *sessions.Writer
	meta sessions.Meta
}

// setup builds the trainer and opens the session (new, or the resumed one).
func (f *runFlags) setup(fs *pflag.FlagSet) (*runSetup, error) {
	if f.resume == "" {
		cfg, err := f.config(fs)
		if err != nil {
			return nil, err
		}
		tr, err := lab.New(cfg)
		if err != nil {
			return nil, err
		}
		path := f.out
		if path == "" {
			path = defaultSessionPath(cfg, time.Now())
		}
		meta, err := runMeta(cfg, tr, path)
		if err != nil {
			return nil, err
		}
		w, err := sessions.Create(path, meta, sessions.WriterOptions{})
		if err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
		return &runSetup{cfg: cfg, tr: tr, w: w, meta: meta}, nil
	}
	var bad []string
	fs.Visit(func(fl *pflag.Flag) {
		if !resumeFlags[fl.Name] {
			bad = append(bad, "--"+fl.Name)
		}
	})
	if len(bad) > 0 {
		return nil, usagef("--resume takes the run's settings from the session; %s cannot change them (allowed: --steps, --workers, --blas, --device, --headless, --predictions)", strings.Join(bad, ", "))
	}
	cfg, ck, err := resumeConfig(f.resume)
	if err != nil {
		return nil, usageError{err}
	}
	if fs.Changed("steps") {
		cfg.Steps = f.steps
	}
	if fs.Changed("workers") {
		cfg.Workers = f.workers
	}
	if fs.Changed("blas") {
		cfg.BLAS = f.blas
	}
	if fs.Changed("device") {
		cfg.Device = f.device
	}
	if err := cfg.Validate(); err != nil {
		return nil, usageError{err}
	}
	if ck.Step >= cfg.Steps {
		return nil, usagef("--resume %s: the last checkpoint is at step %d and the run has %d steps: nothing to do (raise --steps)", f.resume, ck.Step, cfg.Steps)
	}
	tr, err := lab.New(cfg)
	if err != nil {
		return nil, err
	}
	if err := tr.Restore(ck); err != nil {
		return nil, fmt.Errorf("--resume %s: %w", f.resume, err)
	}
	w, meta, err := sessions.Append(f.resume, ck.Step, sessions.WriterOptions{})
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	meta.Steps = cfg.Steps
	return &runSetup{cfg: cfg, tr: tr, w: w, meta: meta}, nil
}

// config turns the flags into a validated lab configuration.
func (f *runFlags) config(fs *pflag.FlagSet) (lab.Config, error) {
	if err := f.tf.checkExplicit(fs); err != nil {
		return lab.Config{}, err
	}
	if !validTask(f.tf.task) {
		_, err := f.tf.build()
		return lab.Config{}, err
	}
	if f.preset != lab.PresetQuick && f.preset != lab.PresetPaper {
		return lab.Config{}, usagef("--preset %q: want quick or paper", f.preset)
	}
	c, err := lab.Preset(f.preset, f.tf.task)
	if err != nil {
		return lab.Config{}, usageError{err}
	}
	set := func(name string, apply func()) {
		if fs.Changed(name) {
			apply()
		}
	}
	for _, name := range []string{"v", "states", "symbols", "k", "pairs", "keys", "values", "fillers", "queries"} {
		if fs.Changed(name) {
			c.Tunnel = mergeTunnel(c.Tunnel, f.tf.cfg, fs)
			break
		}
	}
	if _, err := f.tf.buildWith(c.Tunnel); err != nil {
		return lab.Config{}, err
	}
	c.Model = f.model
	c.Seed = f.seed
	set("steps", func() { c.Steps = f.steps })
	set("batch", func() { c.Batch = f.batch })
	set("lr", func() { c.LR = f.lr })
	set("warmup", func() { c.Warmup = f.warmup })
	set("weight-decay", func() { c.WeightDecay = f.wd })
	set("clip", func() { c.Clip = f.clip })
	set("value-lr", func() { c.ValueLR = f.valueLR })
	set("qk-lr", func() { c.QKLR = f.qkLR })
	set("eval-every", func() { c.EvalEvery = f.evalEvery })
	set("probe", func() { c.ProbeSize = f.probe })
	set("probe-every", func() { c.ProbeEvery = f.probeEvery })
	set("geometry-n", func() { c.GeometryN = f.geometryN })
	set("layers", func() { c.Transformer.Layers = f.layers })
	set("heads", func() { c.Transformer.Heads = f.heads })
	set("width", func() { c.Transformer.Width = f.width })
	set("mlp-hidden", func() { c.Transformer.MLP = f.mlpHidden })
	set("checkpoint-every", func() { c.CheckpointEvery = f.ckptEvery })
	c.Target, c.BLAS, c.Workers, c.Device = f.target, f.blas, f.workers, f.device
	c.MLP.Input = f.mlpInput
	c.Precision = f.precision
	if c.EvalEvery > c.Steps {
		c.EvalEvery = c.Steps
	}
	if err := c.Validate(); err != nil {
		return lab.Config{}, usageError{err}
	}
	return c, nil
}

// mergeTunnel overrides the preset's tunnel sizes with the explicitly given flags.
func mergeTunnel(base, flags tunnels.Config, fs *pflag.FlagSet) tunnels.Config {
	pick := func(name string, dst *int, v int) {
		if fs.Changed(name) {
			*dst = v
		}
	}
	pick("v", &base.V, flags.V)
	pick("states", &base.States, flags.States)
	pick("symbols", &base.Symbols, flags.Symbols)
	pick("k", &base.K, flags.K)
	pick("pairs", &base.Pairs, flags.Pairs)
	pick("keys", &base.Keys, flags.Keys)
	pick("values", &base.Values, flags.Values)
	pick("fillers", &base.Fillers, flags.Fillers)
	pick("queries", &base.Queries, flags.Queries)
	return base
}

func (f *tunnelFlags) buildWith(c tunnels.Config) (tunnels.Tunnel, error) {
	g := *f
	g.cfg = c
	return g.build()
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:   "run",
		Short: "Train a network on a tunnel and score it against the Bayes optimum",
		Long: "run trains a transformer (or the capacity-matched MLP) on a tunnel, evaluating it on a fixed\n" +
			"held-out probe set, records everything in a session file, and prints a JSON summary on stdout\n" +
			"at the end.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := f.setup(cmd.Flags())
			if err != nil {
				return err
			}
			if !f.headless && f.predictions == "" && onTerminal(stdout) {
				return runTUI(cmd.Context(), st, stdout, stderr)
			}
			return runHeadless(cmd.Context(), st, f.predictions, stdout, stderr)
		},
	}
	f.register(c.Flags())
	return c
}

// summary is the JSON line printed at the end of a run.
type summary struct {
	Task             string                     `json:"task"`
	Model            string                     `json:"model"`
	Params           int                        `json:"params"`
	Steps            int                        `json:"steps"`
	WallS            float64                    `json:"wall_s"`
	MsPerStep        float64                    `json:"ms_per_step"` // median training step
	EvalS            float64                    `json:"eval_s"`      // time scoring the probe set
	GeometryS        float64                    `json:"geometry_s"`  // time in geometry snapshots
	AllocPerStep     float64                    `json:"alloc_bytes_per_step"`
	BLAS             string                     `json:"blas"`
	State            string                     `json:"state"`
	BitErrorPosition float64                    `json:"bit_error_position"`
	BitErrorSample   float64                    `json:"bit_error_sample"`
	KLBits           float64                    `json:"kl_bits"`
	TVD              float64                    `json:"tvd"`
	Accuracy         float64                    `json:"accuracy"`
	PerPosition      diagnostics.PositionCurves `json:"per_position"`
	Config           lab.Config                 `json:"config"`
	Session          string                     `json:"session"`
}

// runHeadless trains with a progress line (or log lines) on stderr, records the session,
// and prints the JSON summary. SIGINT, SIGTERM and SIGHUP stop the run cleanly: the final
// evaluation and checkpoint are recorded and the session file is closed.
func runHeadless(ctx context.Context, st *runSetup, predictions string, stdout, stderr io.Writer) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer cancel()
	cfg, tr := st.cfg, st.tr
	defer tr.Close()
	defer func() {
		if cerr := st.w.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	tr.Attach(st.w)
	var pw *os.File
	if predictions != "" {
		if pw, err = os.Create(predictions); err != nil {
			return usagef("--predictions: %v", err)
		}
		defer pw.Close()
	}
	m := tr.Model()
	from := ""
	if tr.Step() > 0 {
		from = fmt.Sprintf(" (resumed at step %d)", tr.Step())
	}
	fmt.Fprintf(stderr, "windtunnel: %s %s, %d parameters, batch %d, %d steps%s, BLAS: %s\nwindtunnel: session %s\n",
		cfg.Task, m.Kind(), m.NumParams(), cfg.Batch, cfg.Steps, from, tr.BLAS(), st.w.Path())
	tty := false
	if f, ok := stderr.(*os.File); ok {
		tty = isatty.IsTerminal(f.Fd())
	}
	done := make(chan struct{})
	// Labels for CPU profiles (WINDTUNNEL_CPUPROFILE; go tool pprof -tags), as in runTUI.
	go pprof.Do(ctx, pprof.Labels("part", "progress"), func(context.Context) {
		defer close(done)
		progress(tr, cfg, tty, stderr)
	})
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var res lab.Result
	var runErr error
	pprof.Do(ctx, pprof.Labels("part", "trainer"), func(ctx context.Context) {
		res, runErr = tr.Run(ctx)
	})
	runtime.ReadMemStats(&ms1)
	<-done
	if runErr != nil && res.Steps == 0 {
		return runErr
	}
	s := summary{
		Task: cfg.Task, Model: m.Kind(), Params: m.NumParams(), Steps: res.Steps, WallS: round(res.WallS, 3),
		BLAS: tr.BLAS(), State: string(res.Last.State),
		BitErrorPosition: res.Scores.BitErrorPosition, BitErrorSample: res.Scores.BitErrorSample,
		KLBits: res.Scores.KLBits, TVD: res.Scores.TVD, Accuracy: res.Scores.Accuracy,
		PerPosition: res.Scores.PerPosition, Config: cfg, Session: st.w.Path(),
	}
	if res.Steps > 0 {
		s.MsPerStep = round(res.MedianStepMs(), 2)
		s.EvalS, s.GeometryS = round(res.EvalS, 3), round(res.GeometryS, 3)
		s.AllocPerStep = round(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(res.Steps), 0)
	}
	if runErr != nil {
		s.State = "failed"
	}
	if err := json.NewEncoder(stdout).Encode(s); err != nil {
		return fmt.Errorf("run: write summary: %w", err)
	}
	if pw != nil && runErr == nil {
		if err := writePredictions(pw, tr, res); err != nil {
			return err
		}
	}
	return runErr
}

func round(x float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}

// progress prints the trainer's records: an updating line on a terminal, else a log line
// at every evaluation.
func progress(tr *lab.Trainer, cfg lab.Config, tty bool, w io.Writer) {
	last := time.Time{}
	be := "-"
	for r := range tr.Records() {
		if r.Eval != nil {
			be = fmt.Sprintf("%.4f", r.Eval.BitErrorPosition)
		}
		eta := "-"
		if r.StepsPerS > 0 {
			eta = (time.Duration(float64(cfg.Steps-r.Step)/r.StepsPerS) * time.Second).Round(time.Second).String()
		}
		line := fmt.Sprintf("step %d/%d  %.1f steps/s  loss %.4f  bit error (a) %s  ETA %s", r.Step, cfg.Steps, r.StepsPerS, r.Loss, be, eta)
		if r.Message != "" {
			line += "  " + r.Message
		}
		switch {
		case tty:
			if time.Since(last) > 100*time.Millisecond || r.Eval != nil || r.State != "training" {
				fmt.Fprintf(w, "\r\033[K%s", line)
				last = time.Now()
			}
		case r.Eval != nil || r.State != "training":
			fmt.Fprintf(w, "%s  [%s]\n", line, r.State)
		}
	}
	if tty {
		fmt.Fprintln(w)
	}
}

func writePredictions(f *os.File, tr *lab.Trainer, res lab.Result) error {
	t := tr.Tunnel()
	P, C := len(t.Positions()), t.Classes()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	stream := tunnels.ProbeStream(tr.Config().Seed)
	var s tunnels.Sequence
	for i := 0; i < tr.Config().ProbeSize; i++ {
		t.Fill(&s, stream, uint64(i))
		model := make([][]float64, P)
		for p := range model {
			model[p] = res.Q[(i*P+p)*C : (i*P+p+1)*C]
		}
		line := struct {
			Task  string `json:"task"`
			Index int    `json:"index"`
			tunnels.Sequence
			Model [][]float64 `json:"model"`
		}{t.Name(), i, s, model}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("run: write predictions: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("run: write predictions: %w", err)
	}
	return nil
}
