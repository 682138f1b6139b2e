package runconfig

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// Flags are run's configuration flags as a command line gives them (BindFlags binds them
// to a flag set; Config builds the configuration they give): the preset, the task and the
// model, a source (File, --config; Like, --like: a recorded run) and the settings over them
// (Overrides, the task's sizes in its Tunnel).
type Flags struct {
	Preset, Task, Model string
	File, Like          string
	Overrides           Overrides
	fs                  *pflag.FlagSet // the set they are bound to: which were given
}

// LikeReader reads the configuration a recorded run stored as the source --like starts
// from (sessions/derived.ReadLike: runconfig does not open sessions).
type LikeReader func(path string) (*Source, error)

// The help of the flags that are not settings.
const (
	presetUsage = "starting configuration: quick (CPU, minutes), laptop (quick's model ten times longer: the authors' bijection precision on a CPU), soft (laptop trained on the exact posterior, not the authors' recipe: 0.0004 bits (b) on bijection), mid (CPU, head dimension 32: the geometry can appear) or paper (the paper's sizes, for a GPU)"
	modelUsage  = " (baselines are capacity-matched to the transformer; mlp is Paper I's per-position MLP, mlp-prefix the ablation that reads the one-hot prefix)"
	fileUsage   = "start from the configuration `FILE` (TOML .toml, YAML .yaml/.yml or JSON .json, with the keys info --config writes): its values replace the preset's, flags given replace its"
	likeUsage   = "start from the configuration the run recorded in `SESSION` used (flags given replace its values; its task stays)"
)

// BindFlags binds every configuration flag of `windtunnel run` in fs to f, each with its
// type, default and help: --task and the sizes (BindTask), --preset, --model, --config,
// --like and one flag a setting.
func BindFlags(fs *pflag.FlagSet, f *Flags) {
	BindTask(fs, f, "bijection")
	BindSome(fs, f, "preset", "model")
	fs.StringVar(&f.File, "config", "", fileUsage)
	fs.StringVar(&f.Like, "like", "", likeUsage)
	for _, s := range settings {
		bindSetting(fs, f, s)
	}
}

// BindSome binds the named flags of run (--preset, --model or settings) in fs to f, as run
// has them: for a command that takes a few of them (compare's --steps, --blas). A name run
// does not have is a programmer's error.
func BindSome(fs *pflag.FlagSet, f *Flags, names ...string) {
	f.fs = fs
	for _, name := range names {
		switch name {
		case "preset":
			fs.StringVar(&f.Preset, "preset", PresetQuick, presetUsage)
		case "model":
			fs.StringVar(&f.Model, "model", arch.KindTransformer, "network: "+arch.KindList()+modelUsage)
		default:
			s, ok := settingOf(name)
			if !ok {
				panic("runconfig: BindSome: run has no setting --" + name)
			}
			bindSetting(fs, f, s)
		}
	}
}

// BindBLAS binds --blas, the matrix-product backend, as run has it, to p: for a command that
// computes without a run's configuration (probe, timescales).
func BindBLAS(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "blas", DefaultOverrides().BLAS, blasUsage)
}

// BindTask binds --task (default task) and the flags of the tunnels' sizes in fs to f.
func BindTask(fs *pflag.FlagSet, f *Flags, task string) {
	f.fs = fs
	fs.StringVar(&f.Task, "task", task, "task: "+strings.Join(tunnels.Names(), ", "))
	t := reflect.ValueOf(&f.Overrides.Tunnel).Elem()
	for _, s := range sizeFlags {
		switch p := t.FieldByName(s.field).Addr().Interface().(type) {
		case *int:
			fs.IntVar(p, s.flag, 0, s.usage())
		case *string:
			fs.StringVar(p, s.flag, "", s.usage())
		}
	}
}

// BindSizePreset binds --preset for a command that draws a task's sequences (sample,
// score): the preset whose sizes the size flags given change (Tunnel).
func BindSizePreset(fs *pflag.FlagSet, f *Flags) {
	fs.StringVar(&f.Preset, "preset", PresetQuick, "the preset whose task sizes the size flags change, as run --preset: "+strings.Join(PresetNames(), ", "))
}

// bindSetting binds the flag of setting s to its Overrides field, of the field's type, with
// DefaultOverrides' value as its default.
func bindSetting(fs *pflag.FlagSet, f *Flags, s setting) {
	def := reflect.ValueOf(DefaultOverrides()).FieldByName(s.overrides())
	switch p := reflect.ValueOf(&f.Overrides).Elem().FieldByName(s.overrides()).Addr().Interface().(type) {
	case *int:
		fs.IntVar(p, s.flag, int(def.Int()), s.usage)
	case *uint64:
		fs.Uint64Var(p, s.flag, def.Uint(), s.usage)
	case *float64:
		fs.Float64Var(p, s.flag, def.Float(), s.usage)
	case *string:
		fs.StringVar(p, s.flag, def.String(), s.usage)
	case *[]int:
		fs.IntSliceVar(p, s.flag, def.Interface().([]int), s.usage)
	default:
		panic(fmt.Sprintf("runconfig: --%s: no flag of type %T", s.flag, p))
	}
}

// Given reports whether the flag name was given on the command line.
func (f *Flags) Given(name string) bool {
	return f.fs != nil && f.fs.Changed(name)
}

// given are the flags given, in the flag set's order.
func (f *Flags) given() []string {
	var names []string
	if f.fs != nil {
		f.fs.Visit(func(fl *pflag.Flag) { names = append(names, fl.Name) })
	}
	return names
}

// FlagNames are the names of run's configuration flags (BindFlags), sorted.
func FlagNames() []string {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	BindFlags(fs, new(Flags))
	var names []string
	fs.VisitAll(func(fl *pflag.Flag) { names = append(names, fl.Name) })
	return names
}

// FromArgs is the configuration run's configuration flags args give (Flags.Config, --like
// read by like): how every point of a sweep or a compare and every row of bench is built.
func FromArgs(args []string, like LikeReader) (Config, error) {
	var f Flags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	BindFlags(fs, &f)
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	return f.Config(like)
}

// CheckPreset refuses a name that is not a preset's.
func CheckPreset(name string) error {
	if !slices.Contains(PresetNames(), name) {
		return fmt.Errorf("--preset %q: want %s", name, strings.Join(PresetNames(), ", "))
	}
	return nil
}

// CheckApplies refuses a flag given for a task or model it does nothing for (the package's
// CheckApplies); with no --model bound, the task's flags alone.
func (f *Flags) CheckApplies() error {
	return CheckApplies(f.given(), f.Task, f.Model)
}

// CheckSizes refuses a size flag given a non-positive value (0 would silently mean "default").
func (f *Flags) CheckSizes() error {
	t := reflect.ValueOf(f.Overrides.Tunnel)
	for _, s := range sizeFlags {
		if v := t.FieldByName(s.field); v.Kind() == reflect.Int && f.Given(s.flag) && v.Int() <= 0 {
			return fmt.Errorf("--%s %d: must be positive", s.flag, v.Int())
		}
	}
	return nil
}

// checkTask refuses a task no tunnel has.
func (f *Flags) checkTask() error {
	if !slices.Contains(tunnels.Names(), f.Task) {
		return fmt.Errorf("--task %q: want one of %s", f.Task, strings.Join(tunnels.Names(), ", "))
	}
	return nil
}

// paramError is a tunnel size out of range as a message about its flag.
func paramError(pe *tunnels.ParamError) error {
	return fmt.Errorf("--%s %d: %s %s must be in %d..%d", pe.Param, pe.Value, pe.Task, pe.Param, pe.Min, pe.Max)
}

// Tunnel builds the task the flags name (sample, score): its sizes are the preset's
// (BindSizePreset) with those given in their place, or the tunnels' defaults where no
// preset is bound. An error names the flag.
func (f *Flags) Tunnel() (tunnels.Tunnel, error) {
	if err := f.CheckSizes(); err != nil {
		return nil, err
	}
	if err := f.checkTask(); err != nil {
		return nil, err
	}
	cfg := f.Overrides.Tunnel
	if f.Preset != "" {
		p, err := Preset(f.Preset, f.Task)
		if err != nil {
			return nil, CheckPreset(f.Preset)
		}
		cfg = MergeTunnel(p.Tunnel, cfg, f.Given)
	}
	t, err := tunnels.New(f.Task, cfg)
	var pe *tunnels.ParamError
	if errors.As(err, &pe) {
		return nil, paramError(pe)
	}
	return t, err
}

// Config is the validated configuration the flags give, by Build (the preset's, then the
// values of --config or --like, then the flags given), after the checks that name flags: a
// task or model a flag does not apply to, the preset's name. The task and model a source
// gives replace the flags' defaults in f. An error names the flag, or the source's key when
// the value is the source's.
func (f *Flags) Config(like LikeReader) (Config, error) {
	if err := f.CheckSizes(); err != nil {
		return Config{}, err
	}
	src, err := f.source(like)
	if err != nil {
		return Config{}, err
	}
	for _, p := range []struct {
		flag string
		dst  *string
	}{{"task", &f.Task}, {"model", &f.Model}} {
		if v, ok := src.Text(p.flag); ok && !f.Given(p.flag) {
			*p.dst = v
		}
	}
	if err := f.checkTask(); err != nil {
		return Config{}, err
	}
	if err := f.CheckApplies(); err != nil {
		return Config{}, err
	}
	if err := CheckPreset(f.Preset); err != nil {
		return Config{}, err
	}
	o := f.Overrides
	o.Given = f.Given
	c, err := Build(Recipe{Preset: f.Preset, Task: f.Task, Model: f.Model, Source: src, Flags: o})
	var pe *tunnels.ParamError
	var fe *arch.FieldError
	switch {
	case err == nil:
		return c, nil
	case errors.As(err, &pe) && src != nil && !f.Given(pe.Param):
		return Config{}, src.TunnelError(pe)
	case errors.As(err, &pe):
		return Config{}, paramError(pe)
	case errors.As(err, &fe) && src != nil:
		if name, ok := FlagOf(fe.Field); !ok || !f.Given(name) {
			return Config{}, src.FieldError(fe)
		}
	case src != nil && !errors.As(err, &fe):
		return Config{}, err // the source's: a value of the wrong type
	}
	return Config{}, FlagError(err)
}

// source reads --config or --like (nil without either), and refuses what cannot go with
// them: both at once, --preset or another --task with --like (the recorded run is whole).
func (f *Flags) source(like LikeReader) (*Source, error) {
	switch {
	case f.File != "" && f.Like != "":
		return nil, errors.New("--config and --like: give one (a file, or a recorded run to start from)")
	case f.File != "":
		return ReadFile(f.File)
	case f.Like == "":
		return nil, nil
	case f.Given("preset"):
		return nil, errors.New("--preset with --like: the recorded run gives every setting (flags change single ones)")
	case like == nil:
		return nil, errors.New("--like: recorded runs are not read here")
	}
	src, err := like(f.Like)
	if err != nil {
		return nil, fmt.Errorf("--like: %v", err)
	}
	if task, _ := src.Text("task"); f.Given("task") && f.Task != task {
		return nil, fmt.Errorf("--task %s with --like %s: that run's task is %s (a file given to --config can change it)", f.Task, f.Like, task)
	}
	return src, nil
}

// FlagError is a configuration error (Validate's *arch.FieldError) as a message naming
// run's flag that sets the field (or the configuration field, for one no flag sets); any
// other error is returned as it is.
func FlagError(err error) error {
	var fe *arch.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	v := ValueText(fe.Value)
	if name, ok := FlagOf(fe.Field); ok {
		return fmt.Errorf("--%s %s: %s", name, v, FlagReason(fe.Reason))
	}
	return fmt.Errorf("configuration %s %s: %s", fe.Field, v, FlagReason(fe.Reason))
}
