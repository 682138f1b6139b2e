package runconfig

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// TestFlagTable: every field the table names exists, in Config and in Overrides with one
// type, and BindFlags binds every row with the help the table gives and the default of
// DefaultOverrides (0 or "" for the sizes).
func TestFlagTable(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	BindFlags(fs, new(Flags))
	def := reflect.ValueOf(DefaultOverrides())
	for _, s := range settings {
		var c Config
		cf := field(&c, s.field)
		of := def.FieldByName(s.overrides())
		if !cf.IsValid() || !of.IsValid() || cf.Type() != of.Type() {
			t.Errorf("--%s: Config.%s and Overrides.%s are not one type (%v, %v)", s.flag, s.field, s.overrides(), cf.IsValid(), of.IsValid())
			continue
		}
		fl := fs.Lookup(s.flag)
		if fl == nil || fl.Usage != s.usage {
			t.Errorf("--%s: not bound with its help: %+v", s.flag, fl)
			continue
		}
		if want := text(of); fl.DefValue != want && !(of.Kind() == reflect.Slice && fl.DefValue == "[]") {
			t.Errorf("--%s: default %q, want %q", s.flag, fl.DefValue, want)
		}
	}
	for _, s := range sizeFlags {
		if f, ok := reflect.TypeOf(tunnels.Config{}).FieldByName(s.field); !ok {
			t.Errorf("--%s: tunnels.Config has no %s", s.flag, s.field)
		} else if fl := fs.Lookup(s.flag); fl == nil || fl.DefValue != text(reflect.Zero(f.Type)) {
			t.Errorf("--%s: bound as %+v", s.flag, fl)
		} else if !strings.HasPrefix(fl.Usage, s.task+": ") {
			t.Errorf("--%s: help %q does not name its task", s.flag, fl.Usage)
		}
	}
	names := FlagNames()
	for _, n := range []string{"task", "preset", "model", "config", "like", "seed", "v", "layout", "checkpoint-every"} {
		if !slices.Contains(names, n) {
			t.Errorf("FlagNames has no %s: %q", n, names)
		}
	}
	if len(names) != len(settings)+len(sizeFlags)+5 {
		t.Errorf("%d flag names, want %d settings, %d sizes and 5 more", len(names), len(settings), len(sizeFlags))
	}
}

// TestFlagsRoundTrip: every flag of the table, given a value other than the preset's,
// builds a configuration (FromArgs) from which Args gives that flag back, and Args' flags
// build the same configuration again.
func TestFlagsRoundTrip(t *testing.T) {
	values := map[string]string{
		"seed": "7", "steps": "600", "batch": "16", "lr": "0.002", "warmup": "50", "weight-decay": "0.05", "clip": "0.5",
		"optimizer": "sgd", "value-lr": "2", "qk-lr": "0.5", "probe": "128", "geometry-n": "32", "jlens-n": "16",
		"init": "normal", "gelu": "erf", "layers": "3", "heads": "2", "width": "32", "mlp-hidden": "96", "eval-k": "20,40",
		"target": "posterior", "blas": "go", "workers": "3", "device": "host", "mlp-input": "token", "precision": "float64",
		"eval-every": "25", "probe-every": "50", "checkpoint-every": "100",
		"v": "12", "states": "4", "symbols": "6", "k": "30", "pairs": "8", "keys": "40", "values": "48", "fillers": "4",
		"queries": "2", "layout": "store",
	}
	var flags []string
	for _, s := range sizeFlags {
		flags = append(flags, s.flag)
	}
	for _, s := range settings {
		flags = append(flags, s.flag)
	}
	for _, flag := range flags {
		t.Run(flag, func(t *testing.T) {
			v, ok := values[flag]
			if !ok {
				t.Fatalf("no test value for --%s", flag)
			}
			task, model := cmpOr(FlagTask(flag), "bijection"), cmpOr(FlagModel(flag), arch.KindTransformer)
			if flag == "device" || flag == "optimizer" {
				model = arch.KindLSTM // the resident step (host) and sgd do not go together with the transformer's defaults
			}
			args := []string{"--task", task, "--model", model, "--" + flag + "=" + v}
			c, err := FromArgs(args, nil)
			if err != nil {
				t.Fatalf("FromArgs(%q): %v", args, err)
			}
			back, err := Args(c, PresetQuick, same)
			if err != nil {
				t.Fatal(err)
			}
			if flag != "seed" && !slices.Contains(back, "--"+flag+"="+v) {
				t.Errorf("Args = %q, want --%s=%s among them", back, flag, v)
			}
			again, err := FromArgs(append([]string{"--task", task, "--model", model, "--seed", text(reflect.ValueOf(c.Seed))}, back...), nil)
			if err != nil || !same(again, c) {
				t.Errorf("Args %q build %+v (%v), want %+v", back, again, err, c)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestFlagsErrors: FromArgs names the flag at fault.
func TestFlagsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--v", "0"}, "--v 0: must be positive"},
		{[]string{"--v", "99"}, "--v 99: bijection v must be in 3..64"},
		{[]string{"--task", "nope"}, `--task "nope": want one of`},
		{[]string{"--k", "5"}, "--k applies to --task hmm only, not bijection"},
		{[]string{"--model", "lstm", "--heads", "2"}, "--heads applies to --model transformer only, not lstm"},
		{[]string{"--preset", "huge"}, `--preset "huge": want quick`},
		{[]string{"--width", "65", "--heads", "4"}, "--heads 4: "},
		{[]string{"--like", "x.wtlab"}, "--like: recorded runs are not read here"},
		{[]string{"--config", "a.toml", "--like", "b.wtlab"}, "--config and --like: give one"},
	} {
		_, err := FromArgs(c.args, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromArgs(%q) = %v, want %q", c.args, err, c.want)
		}
	}
}

// TestOverridesApply: Apply sets the named settings that were given, and no other.
func TestOverridesApply(t *testing.T) {
	c, err := Preset(PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	o := flags(func(o *Overrides) { o.Steps, o.Workers, o.LR = 9000, 2, 0.5 }, "steps", "lr")
	got := o.Apply(c, "steps", "workers")
	if got.Steps != 9000 || got.Workers != c.Workers || got.LR != c.LR {
		t.Errorf("Apply: steps %d workers %d lr %g; want 9000, %d, %g", got.Steps, got.Workers, got.LR, c.Workers, c.LR)
	}
}
