package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"github.com/spf13/pflag"

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
	optimizer   string
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
	evalK       []int
	configFile  string
	like        string
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	f.tf.register(fs, "bijection")
	fs.StringVar(&f.preset, "preset", runconfig.PresetQuick, "starting configuration: quick (CPU, minutes), mid (CPU, ≤ 45 min, head dimension 32: the geometry can appear) or paper (the paper's sizes, for a GPU)")
	fs.StringVar(&f.model, "model", "transformer", "network: "+arch.KindList()+" (baselines are capacity-matched to the transformer; mlp is Paper I's per-position MLP, mlp-prefix the ablation that reads the one-hot prefix)")
	fs.BoolVar(&f.headless, "headless", false, "no TUI: a progress line on a terminal, log lines otherwise, a JSON summary on stdout (implied when stdin or stdout is not a terminal)")
	fs.IntVar(&f.steps, "steps", 0, "training steps (default: the preset's)")
	fs.IntVar(&f.batch, "batch", 0, "sequences per step (default: the preset's)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed for data, probe set and initialisation")
	fs.Float64Var(&f.lr, "lr", 0, "peak learning rate (default: the preset's)")
	fs.IntVar(&f.warmup, "warmup", 0, "linear warm-up steps (default: the preset's)")
	fs.Float64Var(&f.wd, "weight-decay", 0, "weight decay (default: the preset's): AdamW's decoupled decay, scaled by each group's learning rate; with --optimizer sgd at the base learning rate")
	fs.Float64Var(&f.clip, "clip", 1, "global gradient-norm clip (0 disables)")
	fs.StringVar(&f.optimizer, "optimizer", runconfig.OptimizerAdamW, "adamw, or sgd (plain gradient descent, no momentum; not with the resident step of --device cuda or host)")
	fs.Float64Var(&f.valueLR, "value-lr", 1, "learning-rate multiplier for value projections (--model transformer; with adamw it scales their decoupled weight decay too, with sgd only their gradient step)")
	fs.Float64Var(&f.qkLR, "qk-lr", 1, "learning-rate multiplier for query/key projections (--model transformer)")
	fs.IntVar(&f.evalEvery, "eval-every", 0, "evaluate on the probe set every N steps (default: the preset's, at most steps/12, so a short run has 12 evaluations)")
	fs.IntVar(&f.probe, "probe", 0, "held-out probe sequences (default: the preset's)")
	fs.IntVar(&f.probeEvery, "probe-every", 0, "geometry snapshot (focus, keys, QK map, value manifold, ablation table) every N steps, 0 off (default: the preset's, at most steps/6)")
	fs.IntVar(&f.geometryN, "geometry-n", 0, "probe sequences the geometry and ablation table use (default: the preset's)")
	fs.IntVar(&f.layers, "layers", 0, "transformer layers, which the baselines are matched to as well (default: the preset's)")
	fs.IntVar(&f.heads, "heads", 0, "attention heads per layer (--model transformer; default: the preset's)")
	fs.IntVar(&f.width, "width", 0, "transformer width d (default: the preset's)")
	fs.IntVar(&f.mlpHidden, "mlp-hidden", 0, "transformer MLP hidden width (default 4·width)")
	fs.StringVar(&f.target, "target", "", "training target: sampled or posterior (default: the task's)")
	fs.StringVar(&f.device, "device", "cpu", "where the step runs: cpu; cuda (a float32 transformer's whole step on an NVIDIA GPU, other models' matrix products; driver, cuBLAS and NVRTC loaded at run time); cuda-gemm (only matrix products on the GPU); host (the GPU step's executor on Go kernels, for checks)")
	blasFlag(fs, &f.blas)
	fs.IntVar(&f.workers, "workers", 0, "goroutines for kernels (default: all cores)")
	fs.StringVar(&f.mlpInput, "mlp-input", "prefix", "input of --model mlp-prefix: prefix (one-hot prefix up to the scored position) or token (the scored token alone)")
	fs.StringVar(&f.precision, "precision", "float32", "arithmetic: float32 (fast kernels) or float64 (exact, for checks)")
	fs.StringVar(&f.predictions, "predictions", "", "write the probe set with the model's distributions to this JSON Lines file")
	fs.StringVar(&f.out, "out", "", "session file to write, in an existing folder (default ./runs/<time>-<task>-<model>.wtlab, the folder created)")
	fs.StringVar(&f.resume, "resume", "", "continue the session FILE from its last checkpoint (model, optimiser, schedule and data stream); from step 0 if it has none")
	fs.IntSliceVar(&f.evalK, "eval-k", nil, "hmm: observation counts K to evaluate at, each on its own probe set, e.g. 20,30,50 (length generalisation; the training K is always evaluated, so giving only it turns the others off; default: the preset's 20,30,50)")
	fs.StringVar(&f.configFile, "config", "", "start from the configuration `FILE` (TOML .toml, YAML .yaml/.yml or JSON .json, with the keys info --config writes): its values replace the preset's, flags given replace its")
	fs.StringVar(&f.like, "like", "", "start from the configuration the run recorded in `SESSION` used (flags given replace its values; its task stays)")
	fs.IntVar(&f.ckptEvery, "checkpoint-every", 0, "save parameters and optimiser state every N steps (default: the preset's, at most steps/3; 0 with the flag: only at the end)")
}

// config turns the flags into a validated lab configuration: the preset's, then the
// values of --config or --like, then the flags given.
func (f *runFlags) config(fs *pflag.FlagSet) (runconfig.Config, error) {
	if err := f.tf.checkExplicit(fs); err != nil {
		return runconfig.Config{}, err
	}
	src, err := f.source(fs)
	if err != nil {
		return runconfig.Config{}, err
	}
	for _, p := range []struct {
		flag string
		dst  *string
	}{{"task", &f.tf.task}, {"model", &f.model}} {
		if v, ok := src.text(p.flag); ok && !fs.Changed(p.flag) {
			*p.dst = v
		}
	}
	if !validTask(f.tf.task) {
		_, err := f.tf.build()
		return runconfig.Config{}, err
	}
	if err := checkApplies(fs, f.tf.task, f.model); err != nil {
		return runconfig.Config{}, err
	}
	if !slices.Contains(runconfig.PresetNames(), f.preset) {
		return runconfig.Config{}, usagef("--preset %q: want %s", f.preset, strings.Join(runconfig.PresetNames(), ", "))
	}
	c, err := runconfig.Preset(f.preset, f.tf.task)
	if err != nil {
		return runconfig.Config{}, usageError{err}
	}
	if src != nil {
		if c, err = src.apply(c); err != nil {
			return runconfig.Config{}, err
		}
		c.Task = f.tf.task
	}
	set := func(name string, apply func()) {
		if fs.Changed(name) {
			apply()
		}
	}
	// setOr applies a flag with a default of its own when given, or when the source does
	// not give its key.
	setOr := func(name, key string, apply func()) {
		if fs.Changed(name) || !src.has(key) {
			apply()
		}
	}
	for _, name := range []string{"v", "states", "symbols", "k", "pairs", "keys", "values", "fillers", "queries", "layout"} {
		if fs.Changed(name) {
			c.Tunnel = mergeTunnel(c.Tunnel, f.tf.cfg, fs)
			break
		}
	}
	if _, err := f.tf.buildWith(c.Tunnel); err != nil {
		_, raw := tunnels.New(f.tf.task, c.Tunnel)
		return runconfig.Config{}, src.tunnelError(raw, err, fs)
	}
	c.Model = f.model
	setOr("seed", "seed", func() { c.Seed = f.seed })
	set("steps", func() { c.Steps = f.steps })
	// The preset's cadences, fitted to the steps; those the source gives, and the flags,
	// are kept as given.
	fitted := c.FitCadence()
	setOr("", "eval_every", func() { c.EvalEvery = fitted.EvalEvery })
	setOr("", "probe_every", func() { c.ProbeEvery = fitted.ProbeEvery })
	setOr("", "checkpoint_every", func() { c.CheckpointEvery = fitted.CheckpointEvery })
	set("batch", func() { c.Batch = f.batch })
	set("lr", func() { c.LR = f.lr })
	set("warmup", func() { c.Warmup = f.warmup })
	set("weight-decay", func() { c.WeightDecay = f.wd })
	set("clip", func() { c.Clip = f.clip })
	set("optimizer", func() { c.Optimizer = f.optimizer })
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
	set("eval-k", func() { c.EvalK = f.evalK })
	setOr("target", "target", func() { c.Target = f.target })
	setOr("blas", "blas", func() { c.BLAS = f.blas })
	setOr("workers", "workers", func() { c.Workers = f.workers })
	setOr("device", "device", func() { c.Device = f.device })
	setOr("mlp-input", "mlp_prefix.input", func() { c.PrefixMLP.Input = f.mlpInput })
	setOr("precision", "precision", func() { c.Precision = f.precision })
	if c.EvalEvery > c.Steps {
		c.EvalEvery = c.Steps
	}
	if err := c.Validate(); err != nil {
		return runconfig.Config{}, src.fieldError(err, fs)
	}
	return c, nil
}

// source reads --config or --like (nil without either), and rejects what cannot go with
// them: both at once, --preset or another --task with --like (the recorded run is whole).
func (f *runFlags) source(fs *pflag.FlagSet) (*configSource, error) {
	switch {
	case f.configFile != "" && f.like != "":
		return nil, usagef("--config and --like: give one (a file, or a recorded run to start from)")
	case f.configFile != "":
		return readConfigFile(f.configFile)
	case f.like == "":
		return nil, nil
	case fs.Changed("preset"):
		return nil, usagef("--preset with --like: the recorded run gives every setting (flags change single ones)")
	}
	src, err := readLike(f.like)
	if err != nil {
		return nil, err
	}
	if task, _ := src.text("task"); fs.Changed("task") && f.tf.task != task {
		return nil, usagef("--task %s with --like %s: that run's task is %s (a file given to --config can change it)", f.tf.task, f.like, task)
	}
	return src, nil
}

// flagTask is the task a task-specific flag of run or sample applies to ("" for the rest).
func flagTask(name string) string {
	switch name {
	case "v":
		return "bijection"
	case "states", "symbols", "k", "eval-k":
		return "hmm"
	case "pairs", "keys", "values", "fillers", "queries", "layout":
		return "recall"
	}
	return ""
}

// flagModel is the model a model-specific flag of run applies to ("" for the rest). The
// transformer's --layers, --width and --mlp-hidden size the baselines too (they are matched
// to its parameter count); its --heads do not (the count does not depend on them), nor do
// the learning-rate multipliers of projections only attention has.
func flagModel(name string) string {
	switch name {
	case "heads", "qk-lr", "value-lr":
		return arch.KindTransformer
	case "mlp-input":
		return arch.KindPrefixMLP
	}
	return ""
}

// checkApplies rejects a flag given for a task or model it does nothing for, as a usage
// error: "--k applies to --task hmm only". An unknown model (or "", for sample) checks the
// task flags only.
func checkApplies(fs *pflag.FlagSet, task, model string) error {
	var err error
	fs.Visit(func(fl *pflag.Flag) {
		if err != nil {
			return
		}
		if t := flagTask(fl.Name); t != "" && t != task {
			err = usagef("--%s applies to --task %s only, not %s", fl.Name, t, task)
		} else if m := flagModel(fl.Name); arch.KnownKind(model) && m != "" && m != model {
			err = usagef("--%s applies to --model %s only, not %s", fl.Name, m, model)
		}
	})
	return err
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
	if fs.Changed("layout") {
		base.Layout = flags.Layout
	}
	return base
}

func (f *tunnelFlags) buildWith(c tunnels.Config) (tunnels.Tunnel, error) {
	g := *f
	g.cfg = c
	return g.build()
}

// configFlags names the flag that sets each runconfig.Config field a FieldError can name.
var configFlags = map[string]string{
	"Model": "model", "Steps": "steps", "Batch": "batch", "LR": "lr", "Warmup": "warmup",
	"WeightDecay": "weight-decay", "Clip": "clip", "Optimizer": "optimizer", "ValueLR": "value-lr", "QKLR": "qk-lr",
	"EvalEvery": "eval-every", "CheckpointEvery": "checkpoint-every", "ProbeSize": "probe",
	"ProbeEvery": "probe-every", "GeometryN": "geometry-n", "Workers": "workers", "Target": "target",
	"Precision": "precision", "Device": "device", "BLAS": "blas", "Transformer.Layers": "layers",
	"Transformer.Heads": "heads", "Transformer.Width": "width", "Transformer.MLP": "mlp-hidden",
	"PrefixMLP.Input": "mlp-input", "EvalK": "eval-k",
}

// flagError turns a configuration error into a usage error that names the flag (or the
// configuration field, for one no flag sets).
func flagError(err error) error {
	var fe *arch.FieldError
	if !errors.As(err, &fe) {
		return usageError{err}
	}
	v := fmt.Sprint(fe.Value)
	if s, ok := fe.Value.(string); ok {
		v = fmt.Sprintf("%q", s)
	}
	if name, ok := configFlags[fe.Field]; ok {
		return usagef("--%s %s: %s", name, v, fe.Reason)
	}
	return usagef("configuration %s %s: %s", fe.Field, v, fe.Reason)
}
