package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseSet(t *testing.T) {
	for _, c := range []struct {
		in   string
		flag string
		vals []string
		err  string
	}{
		{in: "lr=1e-3,3e-4", flag: "lr", vals: []string{"1e-3", "3e-4"}},
		{in: "--width= 64 , 96", flag: "width", vals: []string{"64", "96"}},
		{in: "eval-k=[20,30],[20]", flag: "eval-k", vals: []string{"20,30", "20"}},
		{in: "seed=range(1,4)", flag: "seed", vals: []string{"1", "2", "3"}},
		{in: "seed=range(0,10,4)", flag: "seed", vals: []string{"0", "4", "8"}},
		{in: "lr=choice(1e-3,3e-4)", flag: "lr", vals: []string{"1e-3", "3e-4"}},
		{in: "steps=40", flag: "steps", vals: []string{"40"}},
		{in: "lr", err: "want FLAG=V1,V2"},
		{in: "lr=", err: "empty grid"},
		{in: "lr=1e-3,,3e-4", err: "an empty value"},
		{in: "eval-k=[20,30", err: "unbalanced ["},
		{in: "seed=range(3,1)", err: "empty grid"},
		{in: "seed=range(1,x)", err: "not an integer"},
		{in: "out=a,b", err: "--out cannot be swept"},
		{in: "resume=x", err: "--resume cannot be swept"},
		{in: "Bad Flag=1", err: "not a flag name"},
	} {
		a, err := ParseSet(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseSet(%q) = %v, %v; want an error with %q", c.in, a, err, c.err)
			}
			continue
		}
		if err != nil || a.Flag != c.flag || !slices.Equal(a.Values, c.vals) {
			t.Errorf("ParseSet(%q) = %+v, %v; want %s %q", c.in, a, err, c.flag, c.vals)
		}
	}
}

func TestPoints(t *testing.T) {
	g := Grid{Axes: []Axis{
		{Flag: "task", Values: []string{"bijection", "hmm"}},
		{Flag: "model", Values: []string{"transformer"}},
		{Flag: "steps", Values: []string{"40"}},
		{Flag: "lr", Values: []string{"1e-3", "3e-4"}},
		{Flag: "seed", Values: []string{"1", "2"}},
	}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 8 {
		t.Fatalf("%d points, want 8", len(pts))
	}
	want := []string{
		"bijection-transformer-lr=1e-3-seed=1", "bijection-transformer-lr=1e-3-seed=2",
		"bijection-transformer-lr=3e-4-seed=1", "bijection-transformer-lr=3e-4-seed=2",
		"hmm-transformer-lr=1e-3-seed=1", "hmm-transformer-lr=1e-3-seed=2",
		"hmm-transformer-lr=3e-4-seed=1", "hmm-transformer-lr=3e-4-seed=2",
	}
	for i, p := range pts {
		if p.Index != i || p.Name != want[i] {
			t.Errorf("point %d: %d %q, want %q", i, p.Index, p.Name, want[i])
		}
	}
	if a := pts[5].Args; !slices.Equal(a, []string{"--task=hmm", "--model=transformer", "--steps=40", "--lr=1e-3", "--seed=2"}) {
		t.Errorf("point 5 args %q", a)
	}
	if pts[0].Session() != want[0]+".wtlab" {
		t.Errorf("session %q", pts[0].Session())
	}

	for _, c := range []struct {
		axes []Axis
		err  string
	}{
		{nil, "empty grid"},
		{[]Axis{{Flag: "lr"}}, "empty grid"},
		{[]Axis{{Flag: "lr", Values: []string{"1", "1"}}}, "twice"},
		{[]Axis{{Flag: "seed", Values: make([]string, 40)}, {Flag: "lr", Values: make([]string, 26)}}, "more than 1000"},
		{[]Axis{{Flag: "out", Values: []string{"x"}}}, "cannot be swept"},
	} {
		for i := range c.axes { // distinct values where a count is what matters
			for j := range c.axes[i].Values {
				if c.axes[i].Values[j] == "" {
					c.axes[i].Values[j] = string(rune('a'+j%26)) + strings.Repeat("x", j/26)
				}
			}
		}
		if _, err := (&Grid{Axes: c.axes}).Points(); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: %v, want %q", c.axes, err, c.err)
		}
	}
}

// TestPointNames: values that are not safe in a file name become underscores, and a name
// stays inside the folder.
func TestPointNames(t *testing.T) {
	g := Grid{Axes: []Axis{{Flag: "task", Values: []string{"bijection"}}, {Flag: "config", Values: []string{"../a b/c.toml", "x"}},
		{Flag: "eval-k", Values: []string{"20,30", "20"}}}}
	pts, err := g.Points()
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].Name != "bijection-config=.._a_b_c.toml-eval-k=20_30" {
		t.Errorf("name %q", pts[0].Name)
	}
	for _, p := range pts {
		if !validName(p.Name) || filepath.Base(p.Session()) != p.Session() {
			t.Errorf("%q is not a safe file name", p.Name)
		}
	}
	for _, bad := range []string{"", "../x", "a/b", ".hidden", "a b", "x\x1b[2J"} {
		if validName(bad) {
			t.Errorf("validName(%q) = true", bad)
		}
	}
}

func TestReadFile(t *testing.T) {
	want := []Axis{{Flag: "lr", Values: []string{"1e-3", "3e-4"}}, {Flag: "width", Values: []string{"64", "96"}},
		{Flag: "eval-k", Values: []string{"20,30"}}, {Flag: "seed", Values: []string{"1", "2", "3"}}}
	wantTOML := slices.Clone(want)
	wantTOML[0] = Axis{Flag: "lr", Values: []string{"0.001", "0.0003"}} // TOML floats, formatted back
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		want       []Axis
	}{
		{"wandb.yaml", `
method: grid
name: widths
parameters:
  lr:
    values: [1e-3, 3e-4]
  width:
    values: [64, 96]
  eval-k:
    value: [20, 30]
  seed:
    values: [1, 2, 3]
`, want},
		{"hydra.yml", `
hydra:
  mode: MULTIRUN
  sweeper:
    params:
      lr: 1e-3,3e-4
      width: choice(64,96)
      eval-k: "[20,30]"
      seed: range(1,4)
`, want},
		{"wandb.toml", `
method = "grid"
[parameters.lr]
values = [1e-3, 3e-4]
[parameters.width]
values = [64, 96]
[parameters.eval-k]
value = [20, 30]
[parameters.seed]
values = [1, 2, 3]
`, wantTOML},
		{"hydra.toml", `
[hydra.sweeper.params]
lr = "1e-3,3e-4"
width = [64, 96]
eval-k = "[20,30]"
seed = "range(1,4)"
`, want},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		g, err := ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.EqualFunc(g.Axes, c.want, func(a, b Axis) bool { return a.Flag == b.Flag && slices.Equal(a.Values, b.Values) }) {
			t.Errorf("%s: axes %v, want %v", c.name, g.Axes, c.want)
		}
	}

	path := filepath.Join(dir, "metric.yaml")
	os.WriteFile(path, []byte("method: grid\nmetric:\n  name: accuracy\n  goal: maximize\nparameters:\n  lr:\n    values: [1e-3]\n"), 0o600)
	if g, err := ReadFile(path); err != nil || g.Metric == nil || *g.Metric != (Metric{"accuracy", "maximize"}) {
		t.Errorf("metric: %+v, %v", g.Metric, err)
	}

	for _, c := range []struct{ name, text, err string }{
		{"bayes.yaml", "method: bayes\nparameters:\n  lr:\n    values: [1]\n", "want grid or random"},
		{"random.yaml", "method: random\nparameters:\n  lr:\n    values: [1]\n", "give run_cap"},
		{"dist.yaml", "method: grid\nparameters:\n  lr:\n    distribution: uniform\n    min: 0\n    max: 1\n", "only method random draws"},
		{"cap.yaml", "method: grid\nrun_cap: 3\nparameters:\n  lr:\n    values: [1]\n", "apply to method random only"},
		{"minmax.yaml", "method: random\nrun_cap: 3\nparameters:\n  lr:\n    distribution: log_uniform_values\n    min: 0.1\n    max: 0.01\n", "want min < max"},
		{"logzero.yaml", "method: random\nrun_cap: 3\nparameters:\n  lr:\n    distribution: log_uniform_values\n    min: 0\n    max: 0.01\n", "want min > 0"},
		{"kind.yaml", "method: random\nrun_cap: 3\nparameters:\n  lr:\n    distribution: beta\n    min: 0\n    max: 1\n", `distribution "beta": want one of`},
		{"needs.yaml", "method: random\nrun_cap: 3\nparameters:\n  lr:\n    distribution: normal\n    mu: 0\n", "needs mu and sigma"},
		{"both.yaml", "method: random\nrun_cap: 3\nparameters:\n  lr:\n    values: [1, 2]\n    min: 0\n    max: 1\n", "values and a distribution"},
		{"sampler.yaml", "hydra:\n  sweeper:\n    sampler:\n      _target_: optuna.samplers.TPESampler\n    n_trials: 3\n    params:\n      lr: interval(0.1, 1)\n", "only optuna.samplers.RandomSampler"},
		{"trials.yaml", "hydra:\n  sweeper:\n    sampler:\n      seed: 3\n    params:\n      lr: interval(0.1, 1)\n", "needs n_trials"},
		{"empty.yaml", "method: grid\nparameters:\n  lr:\n    values: []\n", "empty grid"},
		{"noparams.yaml", "method: grid\n", "empty grid"},
		{"nothing.yaml", "", "empty grid"},
		{"unknown.yaml", "method: grid\nprogram: train.py\nparameters:\n  lr:\n    value: 1\n", `unknown key "program"`},
		{"metric.yaml", "method: grid\nmetric: {name: loss}\nparameters:\n  lr:\n    value: 1\n", `metric.name "loss": want one of bit_error`},
		{"goal.yaml", "method: grid\nmetric: {name: tvd, goal: lowest}\nparameters:\n  lr:\n    value: 1\n", `metric.goal "lowest"`},
		{"engine.yaml", "parameters:\n  out:\n    value: x\n", "cannot be swept"},
		{"alias.yaml", "a: &x [1]\nparameters:\n  lr:\n    values: *x\n", "aliases"},
		{"hydra.yaml", "hydra:\n  sweep:\n    dir: x\n", "not read"},
		{"null.yaml", "parameters:\n  lr:\n    value: null\n", "null"},
		{"bad.toml", "method = \n", "toml"},
		{"sweep.ini", "x", "want a .toml"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if g, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, %v; want an error with %q", c.name, g, err, c.err)
		}
	}
}
