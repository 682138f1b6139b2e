package runconfig

import (
	"fmt"
	"reflect"
	"regexp"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// DefaultOverrides are the flags' defaults (BindFlags registers them): seed 1, the clip and
// learning-rate multipliers 1, BLAS auto, device cpu, the prefix MLP's input prefix,
// precision float32, zero for the rest (the preset's).
func DefaultOverrides() Overrides {
	return Overrides{Seed: 1, Clip: 1, ValueLR: 1, QKLR: 1, BLAS: "auto", Device: "cpu", MLPInput: "prefix", Precision: "float32"}
}

// setting is one flag of run that sets one configuration field: its name, the field, what
// it applies to and its help. Its type and default are those of its Overrides field.
type setting struct {
	flag  string // the flag's name
	field string // the Config field it sets, as a *arch.FieldError names it
	value string // the Overrides field holding the flag's value ("": field)
	own   bool   // a default of its own, used when the source does not give the field
	task  string // the task it applies to ("": all)
	model string // the model it applies to ("": all)
	usage string // its help
}

// overrides is the Overrides field holding the flag's value.
func (s setting) overrides() string {
	if s.value == "" {
		return s.field
	}
	return s.value
}

// blasUsage is the help of --blas, which commands that run no configuration take too.
const blasUsage = "matrix-product backend: auto (go where its assembly kernel runs, else OpenBLAS if found, else go), go (the project's own float32 GEMM), openblas or gonum"

// settings are run's flags that set a configuration field, the cadences last (Args fits
// them to the steps the others give).
var settings = []setting{
	{flag: "seed", field: "Seed", own: true, usage: "seed for data, probe set and initialisation"},
	{flag: "steps", field: "Steps", usage: "training steps (default: the preset's)"},
	{flag: "batch", field: "Batch", usage: "sequences per step (default: the preset's)"},
	{flag: "lr", field: "LR", usage: "peak learning rate (default: the preset's)"},
	{flag: "warmup", field: "Warmup", usage: "linear warm-up steps (default: the preset's)"},
	{flag: "weight-decay", field: "WeightDecay", usage: "weight decay (default: the preset's): AdamW's decoupled decay, scaled by each group's learning rate; with --optimizer sgd at the base learning rate"},
	{flag: "clip", field: "Clip", usage: "global gradient-norm clip (0 disables)"},
	{flag: "optimizer", field: "Optimizer", usage: "adamw, or sgd (plain gradient descent, no momentum; not with the resident step of --device cuda or host) (default: the preset's, adamw)"},
	{flag: "value-lr", field: "ValueLR", model: arch.KindTransformer, usage: "learning-rate multiplier for value projections (--model transformer; with adamw it scales their decoupled weight decay too, with sgd only their gradient step)"},
	{flag: "qk-lr", field: "QKLR", model: arch.KindTransformer, usage: "learning-rate multiplier for query/key projections (--model transformer)"},
	{flag: "probe", field: "ProbeSize", usage: "held-out probe sequences (default: the preset's)"},
	{flag: "geometry-n", field: "GeometryN", usage: "probe sequences the geometry and ablation table use (default: the preset's)"},
	{flag: "jlens-n", field: "JLensN", usage: "of those, the sequences the authors' J-lens frame statistic stacks (default 32; they use 256)"},
	{flag: "init", field: "Init", usage: "parameter initialisation: normal (every weight and embedding N(0, 0.02²)) or torch (PyTorch's defaults, as the authors' models: embeddings N(0, 1), linear maps U(±1/√fan_in); transformer and mlp) (default: the preset's)"},
	{flag: "gelu", field: "GELU", usage: "the MLP's GELU: tanh (its tanh approximation) or erf (the exact form, PyTorch's default and the authors'); transformer, mlp and mlp-prefix (default: the preset's: erf for paper, else tanh)"},
	{flag: "layers", field: "Transformer.Layers", value: "Layers", usage: "transformer layers, which the baselines are matched to as well (default: the preset's)"},
	{flag: "heads", field: "Transformer.Heads", value: "Heads", model: arch.KindTransformer, usage: "attention heads per layer (--model transformer; default: the preset's)"},
	{flag: "width", field: "Transformer.Width", value: "Width", usage: "transformer width d (default: the preset's)"},
	{flag: "mlp-hidden", field: "Transformer.MLP", value: "MLPHidden", usage: "transformer MLP hidden width (default 4·width)"},
	{flag: "eval-k", field: "EvalK", task: "hmm", usage: "hmm: observation counts K to evaluate at, each on its own probe set, e.g. 20,30,50 (length generalisation; the training K is always evaluated, so giving only it turns the others off; default: the preset's 20,30,50)"},
	{flag: "target", field: "Target", usage: "training target: sampled or posterior (default: the preset's: posterior for soft; else the task's, posterior for hmm, sampled for the others)"},
	{flag: "blas", field: "BLAS", own: true, usage: blasUsage},
	{flag: "workers", field: "Workers", own: true, usage: "goroutines for kernels (default: all cores)"},
	{flag: "device", field: "Device", own: true, usage: "where the step runs: cpu; cuda (a float32 transformer's whole step on an NVIDIA GPU, other models' matrix products; driver, cuBLAS and NVRTC loaded at run time); cuda-gemm (only matrix products on the GPU); host (the GPU step's executor on Go kernels, for checks)"},
	{flag: "mlp-input", field: "PrefixMLP.Input", value: "MLPInput", own: true, model: arch.KindPrefixMLP, usage: "input of --model mlp-prefix: prefix (one-hot prefix up to the scored position) or token (the scored token alone)"},
	{flag: "precision", field: "Precision", own: true, usage: "arithmetic: float32 (fast kernels) or float64 (exact, for checks)"},
	{flag: "eval-every", field: "EvalEvery", usage: "evaluate on the probe set every N steps (default: the preset's, at most steps/12, so a short run has 12 evaluations)"},
	{flag: "probe-every", field: "ProbeEvery", usage: "geometry snapshot (focus, keys, QK map, value manifold, ablation table) every N steps, 0 off (default: the preset's, at most steps/6)"},
	{flag: "checkpoint-every", field: "CheckpointEvery", usage: "save parameters and optimiser state every N steps (default: the preset's, at most steps/3; 0 with the flag: only at the end)"},
}

// sizeFlag is one flag of a tunnel's size: its name, the tunnels.Config field it sets, the
// task it applies to and what it is (its help, before the presets' values).
type sizeFlag struct {
	flag, field, task, about string
}

// sizeFlags are the flags of the tunnels' sizes (run, sample and score take them).
var sizeFlags = []sizeFlag{
	{"v", "V", "bijection", fmt.Sprintf("number of symbols V (%d..%d, ", tunnels.MinV, tunnels.MaxV)},
	{"states", "States", "hmm", fmt.Sprintf("hidden states S (%d..%d, ", tunnels.MinStates, tunnels.MaxStates)},
	{"symbols", "Symbols", "hmm", fmt.Sprintf("observation symbols O (%d..%d, ", tunnels.MinSymbols, tunnels.MaxSymbols)},
	{"k", "K", "hmm", fmt.Sprintf("observations per sequence K (%d..%d, ", tunnels.MinK, tunnels.MaxK)},
	{"pairs", "Pairs", "recall", "stored pairs N ("},
	{"keys", "Keys", "recall", "key vocabulary Kv ("},
	{"values", "Values", "recall", "value vocabulary Vv ("},
	{"fillers", "Fillers", "recall", "filler tokens F ("},
	{"queries", "Queries", "recall", "queries M ("},
	{"layout", "Layout", "recall", "pair layout, store (STORE k SEP v, the authors') or kv (k v, as multi-query associative recall) ("},
}

// usage is the size flag's help: its task, what it is and the presets' values.
func (f sizeFlag) usage() string {
	return f.task + ": " + f.about + PresetValues(f.task, func(c tunnels.Config) string {
		v := text(reflect.ValueOf(c).FieldByName(f.field))
		if v == "" && f.field == "Layout" {
			return tunnels.RecallLayoutStore
		}
		return v
	}) + ")"
}

// FlagOf names run's flag that sets a configuration field (its Go path, as a
// *arch.FieldError names it: "Transformer.Heads" is heads); false for a field no flag sets.
func FlagOf(field string) (string, bool) {
	if field == "Model" {
		return "model", true
	}
	for _, s := range settings {
		if s.field == field {
			return s.flag, true
		}
	}
	return "", false
}

// goPath finds the configuration fields a *arch.FieldError's reason names by their Go paths
// ("want a divisor of Transformer.Width (64)").
var goPath = regexp.MustCompile(`\b[A-Z][A-Za-z]*(?:\.[A-Z][A-Za-z]*)+\b`)

// FlagReason is a *arch.FieldError's reason as a message about run's flags gives it: the
// fields it names as the flags that set them ("want a divisor of --width (65)"); a field no
// flag sets keeps its name.
func FlagReason(reason string) string {
	return goPath.ReplaceAllStringFunc(reason, func(p string) string {
		if f, ok := FlagOf(p); ok {
			return "--" + f
		}
		return p
	})
}

// FileReason is a *arch.FieldError's reason as a message about a configuration file gives
// it: the fields it names as the file's keys ("want a divisor of transformer.width (65)").
func FileReason(reason string) string {
	return goPath.ReplaceAllStringFunc(reason, FileKey)
}

// FlagTask is the task a task-specific flag of run or sample applies to ("" for the rest).
func FlagTask(name string) string {
	for _, f := range sizeFlags {
		if f.flag == name {
			return f.task
		}
	}
	s, _ := settingOf(name)
	return s.task
}

// FlagModel is the model a model-specific flag of run applies to ("" for the rest). The
// transformer's --layers, --width and --mlp-hidden size the baselines too (they are matched
// to its parameter count); its --heads do not (the count does not depend on them), nor do
// the learning-rate multipliers of projections only attention has.
func FlagModel(name string) string {
	s, _ := settingOf(name)
	return s.model
}

// CheckApplies refuses the first of the flags given (names, in order) that applies to
// another task (FlagTask) or to another model (FlagModel; checked only when model is a
// known kind: "" checks the task's flags alone): "--k applies to --task hmm only, not
// bijection".
func CheckApplies(given []string, task, model string) error {
	for _, name := range given {
		if t := FlagTask(name); t != "" && t != task {
			return fmt.Errorf("--%s applies to --task %s only, not %s", name, t, task)
		} else if m := FlagModel(name); arch.KnownKind(model) && m != "" && m != model {
			return fmt.Errorf("--%s applies to --model %s only, not %s", name, m, model)
		}
	}
	return nil
}

// MergeTunnel is base with the sizes of flags whose flags were given in place of its own.
func MergeTunnel(base, flags tunnels.Config, given func(flag string) bool) tunnels.Config {
	b, f := reflect.ValueOf(&base).Elem(), reflect.ValueOf(flags)
	for _, t := range sizeFlags {
		if given != nil && given(t.flag) {
			b.FieldByName(t.field).Set(f.FieldByName(t.field))
		}
	}
	return base
}

// Apply is c with the settings of the named flags that were given (o.Given) set from o: a
// resumed run's changes (lab/launch.ResumeSettings). A name that is not a setting's flag
// is a programmer's error.
func (o Overrides) Apply(c Config, flags ...string) Config {
	ov := reflect.ValueOf(o)
	for _, name := range flags {
		s, ok := settingOf(name)
		if !ok {
			panic("runconfig: Apply: no setting --" + name)
		}
		if o.Given != nil && o.Given(name) {
			field(&c, s.field).Set(ov.FieldByName(s.overrides()))
		}
	}
	return c
}

// settingOf is the row of settings of the flag name.
func settingOf(name string) (setting, bool) {
	for _, s := range settings {
		if s.flag == name {
			return s, true
		}
	}
	return setting{}, false
}
