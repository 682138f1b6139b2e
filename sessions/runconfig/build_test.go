package runconfig

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// flags are DefaultOverrides with the named flags given (set changes their values).
func flags(set func(o *Overrides), given ...string) Overrides {
	o := DefaultOverrides()
	if set != nil {
		set(&o)
	}
	g := map[string]bool{}
	for _, n := range given {
		g[n] = true
	}
	o.Given = func(f string) bool { return g[f] }
	return o
}

// TestBuildCadences: one rule fits the cadences to the steps whichever layer they came
// from: the preset's always, a source's (a file or a recorded run) when the steps are not
// the source's own, a flag's never; the evaluation cadence is at most the steps.
func TestBuildCadences(t *testing.T) {
	recorded, err := Build(Recipe{Preset: PresetQuick, Task: "bijection", Model: arch.KindTransformer,
		Flags: flags(func(o *Overrides) { o.Steps, o.EvalEvery, o.ProbeEvery, o.CheckpointEvery = 3000, 50, 100, 200 },
			"steps", "eval-every", "probe-every", "checkpoint-every")})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(file, []byte("steps = 120\neval_every = 7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile, err := ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name              string
		src               *Source
		o                 Overrides
		eval, probe, ckpt int
		steps             int
	}{
		{name: "preset at 100 steps", o: flags(func(o *Overrides) { o.Steps = 100 }, "steps"), eval: 8, probe: 16, ckpt: 33, steps: 100},
		{name: "like at 100 steps", src: Like("a.wtlab", recorded), o: flags(func(o *Overrides) { o.Steps = 100 }, "steps"), eval: 8, probe: 16, ckpt: 33, steps: 100},
		{name: "like as recorded", src: Like("a.wtlab", recorded), o: flags(nil), eval: 50, probe: 100, ckpt: 200, steps: 3000},
		{name: "file's own steps", src: fromFile, o: flags(nil), eval: 7, probe: 20, ckpt: 40, steps: 120},
		{name: "file at 24 steps", src: fromFile, o: flags(func(o *Overrides) { o.Steps = 24 }, "steps"), eval: 2, probe: 4, ckpt: 8, steps: 24},
		{name: "flag kept", o: flags(func(o *Overrides) { o.Steps, o.EvalEvery = 100, 40 }, "steps", "eval-every"), eval: 40, probe: 16, ckpt: 33, steps: 100},
		{name: "flag above the steps", o: flags(func(o *Overrides) { o.Steps, o.EvalEvery = 100, 400 }, "steps", "eval-every"), eval: 100, probe: 16, ckpt: 33, steps: 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Build(Recipe{Preset: PresetQuick, Task: "bijection", Model: arch.KindTransformer, Source: c.src, Flags: c.o})
			if err != nil {
				t.Fatal(err)
			}
			if got.Steps != c.steps || got.EvalEvery != c.eval || got.ProbeEvery != c.probe || got.CheckpointEvery != c.ckpt {
				t.Errorf("steps %d, every %d/%d/%d; want %d, %d/%d/%d", got.Steps, got.EvalEvery, got.ProbeEvery, got.CheckpointEvery,
					c.steps, c.eval, c.probe, c.ckpt)
			}
		})
	}
}

// TestBuildDefaults: without a source the flags' own defaults are stored (the prefix MLP's
// input "prefix" whatever the model, as run always stored it); a source that gives a key
// keeps it; a bad size or setting is the typed error that names it.
func TestBuildDefaults(t *testing.T) {
	c, err := Build(Recipe{Preset: PresetQuick, Task: "hmm", Model: arch.KindLSTM, Flags: flags(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if c.PrefixMLP.Input != "prefix" || c.Seed != 1 || c.Device != "cpu" || c.Precision != "float32" || c.BLAS != "auto" || c.Model != arch.KindLSTM {
		t.Errorf("defaults: %+v", c)
	}
	like := c
	like.Seed, like.PrefixMLP.Input = 7, ""
	c2, err := Build(Recipe{Preset: PresetMid, Task: "hmm", Model: arch.KindLSTM, Source: Like("x", like), Flags: flags(nil)})
	if err != nil || c2.Seed != 7 || c2.PrefixMLP.Input != "" || c2.Transformer != c.Transformer {
		t.Errorf("a recorded run's values: %+v, %v", c2, err)
	}
	_, err = Build(Recipe{Preset: PresetQuick, Task: "bijection", Model: arch.KindTransformer,
		Flags: flags(func(o *Overrides) { o.Tunnel.V = 2 }, "v")})
	var pe *tunnels.ParamError
	if !errors.As(err, &pe) || pe.Param != "v" {
		t.Errorf("--v 2: %v", err)
	}
	_, err = Build(Recipe{Preset: PresetQuick, Task: "bijection", Model: arch.KindTransformer, Flags: flags(func(o *Overrides) { o.LR = -1 }, "lr")})
	var fe *arch.FieldError
	if !errors.As(err, &fe) || fe.Field != "LR" {
		t.Errorf("--lr -1: %v", err)
	} else if flag, ok := FlagOf(fe.Field); !ok || flag != "lr" {
		t.Errorf("FlagOf(LR) = %q, %v", flag, ok)
	}
}

// same is configurations equal as JSON.
func same(a, b Config) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestArgs: Args gives flags that build the configuration they were taken from (Args checks
// it with same: equal JSON) for configurations built from flags of every kind, over the
// preset they were built from (the flags given, but the seed, which Args leaves to the
// caller) and, for the transformer (whose every size has a flag), over every preset; flags
// of another task or model are never among them. No flags build a baseline's own width.
func TestArgs(t *testing.T) {
	for _, c := range []struct {
		name, task, model string
		set               func(o *Overrides)
		given             []string
	}{
		{"preset", "bijection", arch.KindTransformer, nil, nil},
		{"steps and seed", "hmm", arch.KindLSTM, func(o *Overrides) { o.Steps, o.Seed = 300, 4 }, []string{"steps", "seed"}},
		{"sizes", "bijection", arch.KindTransformer, func(o *Overrides) {
			o.Tunnel.V, o.Layers, o.Heads, o.Width, o.Batch, o.LR, o.Steps, o.EvalEvery = 8, 2, 2, 32, 32, 3e-3, 40, 5
		}, []string{"v", "layers", "heads", "width", "batch", "lr", "steps", "eval-every"}},
		{"recall and kv", "recall", arch.KindMamba, func(o *Overrides) {
			o.Tunnel.Pairs, o.Tunnel.Queries, o.Tunnel.Layout, o.Precision = 3, 3, "store", "float64"
		}, []string{"pairs", "queries", "layout", "precision"}},
		{"hmm lengths", "hmm", arch.KindTransformer, func(o *Overrides) { o.Tunnel.K, o.EvalK, o.ProbeEvery = 8, []int{8, 16}, 0 },
			[]string{"k", "eval-k", "probe-every"}},
		{"mlp-prefix token", "bijection", arch.KindPrefixMLP, func(o *Overrides) { o.MLPInput, o.WeightDecay = "token", 0.05 },
			[]string{"mlp-input", "weight-decay"}},
	} {
		for _, preset := range PresetNames() {
			t.Run(c.name+" "+preset, func(t *testing.T) {
				want, err := Build(Recipe{Preset: PresetQuick, Task: c.task, Model: c.model, Flags: flags(c.set, c.given...)})
				if err != nil {
					t.Fatal(err)
				}
				args, err := Args(want, preset, same)
				if err != nil {
					if preset == PresetQuick || c.model == arch.KindTransformer {
						t.Fatal(err)
					}
					return
				}
				if preset == PresetQuick && len(args) != len(c.given)-btoi(slices.Contains(c.given, "seed")) {
					t.Errorf("args %q for the flags %q", args, c.given)
				}
				for _, arg := range args {
					name, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
					if t2, m := FlagTask(name), FlagModel(name); (t2 != "" && t2 != c.task) || (m != "" && m != c.model) {
						t.Errorf("%s does not apply to %s %s", arg, c.task, c.model)
					}
				}
			})
		}
	}
	c, _ := Preset(PresetQuick, "bijection")
	c.Model, c.LSTM.Width = arch.KindLSTM, 40
	if args, err := Args(c, PresetQuick, same); err == nil {
		t.Errorf("an LSTM of its own width: args %q", args)
	}
}

// TestBuildKeepsPreset: with no flag given, every setting a flag sets is the preset's, but
// the cadences (fitted to the steps) and the flags with a default of their own where the
// preset leaves the field unset. (The soft preset's posterior target was lost this way:
// `run --preset soft` trained on sampled tokens.)
func TestBuildKeepsPreset(t *testing.T) {
	cadence := map[string]bool{"eval-every": true, "probe-every": true, "checkpoint-every": true}
	for _, name := range PresetNames() {
		for _, task := range tunnels.Names() {
			p, err := Preset(name, task)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Build(Recipe{Preset: name, Task: task, Model: arch.KindTransformer, Flags: flags(nil)})
			if err != nil {
				t.Fatalf("%s %s: %v", name, task, err)
			}
			for _, s := range settings {
				want := field(&p, s.field)
				if cadence[s.flag] || (s.own && want.IsZero()) {
					continue
				}
				if got := field(&c, s.field); text(got) != text(want) {
					t.Errorf("%s %s: --%s not given: %s, the preset's is %s", name, task, s.flag, text(got), text(want))
				}
			}
		}
	}
	c, err := Build(Recipe{Preset: PresetSoft, Task: "bijection", Model: arch.KindTransformer, Flags: flags(nil)})
	if err != nil || c.Target != tunnels.Posterior.String() {
		t.Errorf("soft bijection: target %q, %v; want posterior", c.Target, err)
	}
}
