package main

import (
	"errors"
	"io"
	"slices"
	"strings"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"

	"github.com/spf13/pflag"

	"windtunnel/tunnels"
)

// runFlags are the flags of `windtunnel run`: those that set the configuration in o (the
// tunnel's sizes in tf), the rest here.
type runFlags struct {
	tf          tunnelFlags
	o           runconfig.Overrides
	preset      string
	model       string
	headless    bool
	predictions string
	out         string
	resume      string
	configFile  string
	like        string
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	o, d := &f.o, runconfig.DefaultOverrides()
	f.tf.register(fs, "bijection")
	fs.StringVar(&f.preset, "preset", runconfig.PresetQuick, "starting configuration: quick (CPU, minutes), laptop (quick's model ten times longer: the authors' bijection precision on a CPU), mid (CPU, head dimension 32: the geometry can appear) or paper (the paper's sizes, for a GPU)")
	fs.StringVar(&f.model, "model", "transformer", "network: "+arch.KindList()+" (baselines are capacity-matched to the transformer; mlp is Paper I's per-position MLP, mlp-prefix the ablation that reads the one-hot prefix)")
	fs.BoolVar(&f.headless, "headless", false, "no TUI: a progress line on a terminal, log lines otherwise, and a summary on stdout at the end: a few lines on a terminal, a JSON line otherwise or with --json (implied when stdin or stdout is not a terminal)")
	fs.IntVar(&o.Steps, "steps", d.Steps, "training steps (default: the preset's)")
	fs.IntVar(&o.Batch, "batch", d.Batch, "sequences per step (default: the preset's)")
	fs.Uint64Var(&o.Seed, "seed", d.Seed, "seed for data, probe set and initialisation")
	fs.Float64Var(&o.LR, "lr", d.LR, "peak learning rate (default: the preset's)")
	fs.IntVar(&o.Warmup, "warmup", d.Warmup, "linear warm-up steps (default: the preset's)")
	fs.Float64Var(&o.WeightDecay, "weight-decay", d.WeightDecay, "weight decay (default: the preset's): AdamW's decoupled decay, scaled by each group's learning rate; with --optimizer sgd at the base learning rate")
	fs.Float64Var(&o.Clip, "clip", d.Clip, "global gradient-norm clip (0 disables)")
	fs.StringVar(&o.Optimizer, "optimizer", d.Optimizer, "adamw, or sgd (plain gradient descent, no momentum; not with the resident step of --device cuda or host) (default: the preset's, adamw)")
	fs.Float64Var(&o.ValueLR, "value-lr", d.ValueLR, "learning-rate multiplier for value projections (--model transformer; with adamw it scales their decoupled weight decay too, with sgd only their gradient step)")
	fs.Float64Var(&o.QKLR, "qk-lr", d.QKLR, "learning-rate multiplier for query/key projections (--model transformer)")
	fs.IntVar(&o.EvalEvery, "eval-every", d.EvalEvery, "evaluate on the probe set every N steps (default: the preset's, at most steps/12, so a short run has 12 evaluations)")
	fs.IntVar(&o.ProbeSize, "probe", d.ProbeSize, "held-out probe sequences (default: the preset's)")
	fs.IntVar(&o.ProbeEvery, "probe-every", d.ProbeEvery, "geometry snapshot (focus, keys, QK map, value manifold, ablation table) every N steps, 0 off (default: the preset's, at most steps/6)")
	fs.IntVar(&o.GeometryN, "geometry-n", d.GeometryN, "probe sequences the geometry and ablation table use (default: the preset's)")
	fs.IntVar(&o.JLensN, "jlens-n", d.JLensN, "of those, the sequences the authors' J-lens frame statistic stacks (default 32; they use 256)")
	fs.IntVar(&o.Layers, "layers", d.Layers, "transformer layers, which the baselines are matched to as well (default: the preset's)")
	fs.IntVar(&o.Heads, "heads", d.Heads, "attention heads per layer (--model transformer; default: the preset's)")
	fs.IntVar(&o.Width, "width", d.Width, "transformer width d (default: the preset's)")
	fs.IntVar(&o.MLPHidden, "mlp-hidden", d.MLPHidden, "transformer MLP hidden width (default 4·width)")
	fs.StringVar(&o.Target, "target", d.Target, "training target: sampled or posterior (default: the task's)")
	fs.StringVar(&o.Device, "device", d.Device, "where the step runs: cpu; cuda (a float32 transformer's whole step on an NVIDIA GPU, other models' matrix products; driver, cuBLAS and NVRTC loaded at run time); cuda-gemm (only matrix products on the GPU); host (the GPU step's executor on Go kernels, for checks)")
	blasFlag(fs, &o.BLAS)
	fs.IntVar(&o.Workers, "workers", d.Workers, "goroutines for kernels (default: all cores)")
	fs.StringVar(&o.MLPInput, "mlp-input", d.MLPInput, "input of --model mlp-prefix: prefix (one-hot prefix up to the scored position) or token (the scored token alone)")
	fs.StringVar(&o.Precision, "precision", d.Precision, "arithmetic: float32 (fast kernels) or float64 (exact, for checks)")
	fs.StringVar(&o.Init, "init", d.Init, "parameter initialisation: normal (every weight and embedding N(0, 0.02²)) or torch (PyTorch's defaults, as the authors' models: embeddings N(0, 1), linear maps U(±1/√fan_in); transformer and mlp) (default: the preset's)")
	fs.StringVar(&f.predictions, "predictions", "", "write the probe set with the model's distributions to this JSON Lines file")
	fs.StringVar(&f.out, "out", "", "session file to write, in an existing folder (default ./runs/<time>-<task>-<model>.wtlab, the folder created)")
	fs.StringVar(&f.resume, "resume", "", "continue the session FILE from its last checkpoint (model, optimiser, schedule and data stream); from step 0 if it has none")
	fs.IntSliceVar(&o.EvalK, "eval-k", d.EvalK, "hmm: observation counts K to evaluate at, each on its own probe set, e.g. 20,30,50 (length generalisation; the training K is always evaluated, so giving only it turns the others off; default: the preset's 20,30,50)")
	fs.StringVar(&f.configFile, "config", "", "start from the configuration `FILE` (TOML .toml, YAML .yaml/.yml or JSON .json, with the keys info --config writes): its values replace the preset's, flags given replace its")
	fs.StringVar(&f.like, "like", "", "start from the configuration the run recorded in `SESSION` used (flags given replace its values; its task stays)")
	fs.IntVar(&o.CheckpointEvery, "checkpoint-every", d.CheckpointEvery, "save parameters and optimiser state every N steps (default: the preset's, at most steps/3; 0 with the flag: only at the end)")
}

// config turns the flags into a validated configuration by runconfig.Build (the preset's,
// then the values of --config or --like, then the flags given), after the checks that
// name flags: a task or model a flag does not apply to, the preset's name.
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
		if v, ok := src.Text(p.flag); ok && !fs.Changed(p.flag) {
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
	o := f.o
	o.Tunnel, o.Given = f.tf.cfg, fs.Changed
	c, err := runconfig.Build(runconfig.Recipe{Preset: f.preset, Task: f.tf.task, Model: f.model, Source: src, Flags: o})
	var pe *tunnels.ParamError
	var fe *arch.FieldError
	switch {
	case err == nil:
		return c, nil
	case errors.As(err, &pe) && src != nil && !fs.Changed(pe.Param):
		return runconfig.Config{}, usageError{src.TunnelError(pe)}
	case errors.As(err, &pe):
		return runconfig.Config{}, usagef("--%s %d: %s %s must be in %d..%d", pe.Param, pe.Value, pe.Task, pe.Param, pe.Min, pe.Max)
	case errors.As(err, &fe) && src != nil:
		if name, ok := runconfig.FlagOf(fe.Field); !ok || !fs.Changed(name) {
			return runconfig.Config{}, usageError{src.FieldError(fe)}
		}
	case src != nil && !errors.As(err, &fe):
		return runconfig.Config{}, usageError{err} // the source's: a value of the wrong type
	}
	return runconfig.Config{}, flagError(err)
}

// pointConfig is the configuration `windtunnel run` builds from the flags args (its own
// flags, checks and runconfig.Build): every point of sweep and compare (refused before
// anything is trained or submitted when run would refuse it) and every row of bench.
func pointConfig(args []string) (runconfig.Config, error) {
	var f runFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return runconfig.Config{}, usageError{err}
	}
	return f.config(fs)
}

// source reads --config or --like (nil without either), and rejects what cannot go with
// them: both at once, --preset or another --task with --like (the recorded run is whole).
func (f *runFlags) source(fs *pflag.FlagSet) (*runconfig.Source, error) {
	switch {
	case f.configFile != "" && f.like != "":
		return nil, usagef("--config and --like: give one (a file, or a recorded run to start from)")
	case f.configFile != "":
		src, err := runconfig.ReadFile(f.configFile)
		if err != nil {
			return nil, usageError{err}
		}
		return src, nil
	case f.like == "":
		return nil, nil
	case fs.Changed("preset"):
		return nil, usagef("--preset with --like: the recorded run gives every setting (flags change single ones)")
	}
	src, err := derived.ReadLike(f.like)
	if err != nil {
		return nil, usagef("--like: %v", err)
	}
	if task, _ := src.Text("task"); fs.Changed("task") && f.tf.task != task {
		return nil, usagef("--task %s with --like %s: that run's task is %s (a file given to --config can change it)", f.tf.task, f.like, task)
	}
	return src, nil
}

// checkApplies rejects a flag given for a task or model it does nothing for
// (runconfig.CheckApplies) as a usage error. An unknown model (or "", for sample) checks
// the task flags only.
func checkApplies(fs *pflag.FlagSet, task, model string) error {
	var given []string
	fs.Visit(func(fl *pflag.Flag) { given = append(given, fl.Name) })
	if err := runconfig.CheckApplies(given, task, model); err != nil {
		return usageError{err}
	}
	return nil
}

// flagError turns a configuration error into a usage error that names the flag (or the
// configuration field, for one no flag sets).
func flagError(err error) error {
	var fe *arch.FieldError
	if !errors.As(err, &fe) {
		return usageError{err}
	}
	v := runconfig.ValueText(fe.Value)
	if name, ok := runconfig.FlagOf(fe.Field); ok {
		return usagef("--%s %s: %s", name, v, runconfig.FlagReason(fe.Reason))
	}
	return usagef("configuration %s %s: %s", fe.Field, v, runconfig.FlagReason(fe.Reason))
}
