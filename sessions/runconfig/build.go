package runconfig

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// Overrides are the settings given over a preset and a source: `windtunnel run`'s flags,
// each field the value of the flag named beside it. Given reports which flags were given
// (nil: none); a flag not given leaves the field to the source or the preset, except the
// flags with a default of their own (seed, blas, workers, device, mlp-input,
// precision), whose value is used when the source does not give the field either.
type Overrides struct {
	Tunnel          tunnels.Config // v, states, symbols, k, pairs, keys, values, fillers, queries, layout
	Steps           int            // steps
	Batch           int            // batch
	Seed            uint64         // seed
	LR              float64        // lr
	Warmup          int            // warmup
	WeightDecay     float64        // weight-decay
	Clip            float64        // clip
	Optimizer       string         // optimizer
	ValueLR         float64        // value-lr
	QKLR            float64        // qk-lr
	EvalEvery       int            // eval-every
	ProbeSize       int            // probe
	ProbeEvery      int            // probe-every
	GeometryN       int            // geometry-n
	JLensN          int            // jlens-n
	Layers          int            // layers
	Heads           int            // heads
	Width           int            // width
	MLPHidden       int            // mlp-hidden
	CheckpointEvery int            // checkpoint-every
	EvalK           []int          // eval-k
	Target          string         // target
	BLAS            string         // blas
	Device          string         // device
	Workers         int            // workers
	MLPInput        string         // mlp-input
	Precision       string         // precision
	Init            string         // init
	GELU            string         // gelu
	// Given reports whether the flag of that name was given.
	Given func(flag string) bool
}

// Recipe is what a run's configuration is built from, each layer over the one before: the
// preset for the task, a source (a configuration file or a recorded run; nil for none),
// the model, and the flags given.
type Recipe struct {
	Preset, Task, Model string
	Source              *Source
	Flags               Overrides
}

// ForModel is c for another model kind: the preset's PyTorch initialisation is kept only
// for the models that have it (arch.TorchInit), and its GELU form for those with a GELU
// (arch.HasGELU); the others get their own ("").
func (c Config) ForModel(kind string) Config {
	c.Model = kind
	if !arch.TorchInit(kind) {
		c.Init = ""
	}
	if !arch.HasGELU(kind) {
		c.GELU = ""
	}
	return c
}

// Build is the one path from a recipe to a validated configuration, taken by run (a
// preset, --config, --like, flags), by every point of compare and sweep (run's flags) and
// by bench: the preset; the source's values over it (its task replaced by the recipe's);
// the tunnel sizes given (a size out of range is tunnels.New's *tunnels.ParamError); the
// model; the flags given (and those with a default of their own that the source does not
// give). Then the cadences are fitted to the steps (FitCadence): those given as flags are
// kept, as are a source's when the steps are the source's own (it chose them for that
// length); the preset's, and a source's when the steps changed, are fitted. The evaluation
// cadence is at most the steps. A bad setting is Validate's *arch.FieldError.
func Build(r Recipe) (Config, error) {
	given := r.Flags.Given
	if given == nil {
		given = func(string) bool { return false }
	}
	c, err := Preset(r.Preset, r.Task)
	if err != nil {
		return Config{}, err
	}
	srcSteps := 0
	if r.Source != nil {
		if c, err = r.Source.Apply(c); err != nil {
			return Config{}, err
		}
		c.Task, srcSteps = r.Task, c.Steps
	}
	c.Tunnel = MergeTunnel(c.Tunnel, r.Flags.Tunnel, given)
	if _, err := tunnels.New(r.Task, c.Tunnel); err != nil {
		return Config{}, err
	}
	if r.Source.Has(FileKey("Init")) {
		c.Model = r.Model // a source's initialisation is kept, and Validate judges it
	} else {
		c = c.ForModel(r.Model)
	}
	o := reflect.ValueOf(r.Flags)
	for _, s := range settings {
		if given(s.flag) || (s.own && !r.Source.Has(FileKey(s.field))) {
			field(&c, s.field).Set(o.FieldByName(s.overrides()))
		}
	}
	fitted := c.FitCadence()
	for _, cad := range []struct {
		flag, key string
		dst       *int
		fit       int
	}{
		{"eval-every", "eval_every", &c.EvalEvery, fitted.EvalEvery},
		{"probe-every", "probe_every", &c.ProbeEvery, fitted.ProbeEvery},
		{"checkpoint-every", "checkpoint_every", &c.CheckpointEvery, fitted.CheckpointEvery},
	} {
		if !given(cad.flag) && !(r.Source.Has(cad.key) && c.Steps == srcSteps) {
			*cad.dst = cad.fit
		}
	}
	if c.EvalEvery > c.Steps {
		c.EvalEvery = c.Steps
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Args are the fewest flags of run that, with --preset preset and c's --task, --model and
// --seed, build a configuration same as c (Build; same decides, e.g. under the rule of
// sessions/derived, where workers and BLAS do not matter and an unset device is cpu): all
// the settings where c differs from what the preset gives, then each left out that same
// does without. Flags that do not apply to c's task or model are never given; an error
// says that no flags build c (a size no flag sets, such as a baseline's own width).
func Args(c Config, preset string, same func(built, c Config) bool) ([]string, error) {
	given := map[string]bool{"seed": true}
	build := func() (Config, error) {
		o := DefaultOverrides()
		o.Given = func(flag string) bool { return given[flag] }
		ov, tc, to := reflect.ValueOf(&o).Elem(), reflect.ValueOf(c.Tunnel), reflect.ValueOf(&o.Tunnel).Elem()
		for _, t := range sizeFlags {
			if given[t.flag] {
				to.FieldByName(t.field).Set(tc.FieldByName(t.field))
			}
		}
		for _, s := range settings {
			if given[s.flag] {
				ov.FieldByName(s.overrides()).Set(field(&c, s.field))
			}
		}
		return Build(Recipe{Preset: preset, Task: c.Task, Model: c.Model, Flags: o})
	}
	applies := func(flag string) bool {
		t, m := FlagTask(flag), FlagModel(flag)
		return (t == "" || t == c.Task) && (m == "" || m == c.Model)
	}
	var flags []string // given, in the order of the settings
	differ := func(flag string, b Config) {
		if applies(flag) && flagValue(c, flag) != flagValue(b, flag) {
			flags, given[flag] = append(flags, flag), true
		}
	}
	b, err := build()
	if err != nil {
		return nil, err
	}
	for _, t := range sizeFlags {
		differ(t.flag, b)
	}
	for _, s := range settings {
		if s.flag == "eval-every" { // the cadences against the steps given so far
			if b, err = build(); err != nil {
				return nil, err
			}
		}
		if s.flag != "seed" {
			differ(s.flag, b)
		}
	}
	if b, err = build(); err != nil || !same(b, c) {
		return nil, fmt.Errorf("runconfig: no flags of run build this %s %s configuration over preset %s (%v)", c.Task, c.Model, preset, err)
	}
	var out []string
	for _, flag := range flags {
		given[flag] = false
		if b, err := build(); err == nil && same(b, c) {
			continue
		}
		given[flag] = true
		out = append(out, "--"+flag+"="+flagValue(c, flag))
	}
	return out, nil
}

// flagValue is the value of run's flag that gives c's setting, as the flag takes it.
func flagValue(c Config, flag string) string {
	for _, t := range sizeFlags {
		if t.flag == flag {
			return text(reflect.ValueOf(c.Tunnel).FieldByName(t.field))
		}
	}
	for _, s := range settings {
		if s.flag == flag {
			return text(field(&c, s.field))
		}
	}
	return ""
}

// field is the field of c at a Go path ("Transformer.Layers").
func field(c *Config, path string) reflect.Value {
	v := reflect.ValueOf(c).Elem()
	for _, name := range strings.Split(path, ".") {
		v = v.FieldByName(name)
	}
	return v
}

// text is a setting's value as its flag takes it.
func text(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = text(v.Index(i))
		}
		return strings.Join(parts, ",")
	}
	return v.String()
}
