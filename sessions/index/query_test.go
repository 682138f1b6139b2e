package index

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"windtunnel/sessions/runconfig"
)

// lsTestRows are four runs: three finished with evaluations, one without.
func lsTestRows(t *testing.T) []Run {
	t.Helper()
	f := func(x float64) *float64 { return &x }
	row := func(path, task, model, state string, seed uint64, layers int, lr float64, be, kl *float64) Run {
		c, err := runconfig.Preset(runconfig.PresetQuick, task)
		if err != nil {
			t.Fatal(err)
		}
		c.Model, c.Seed, c.Transformer.Layers, c.LR = model, seed, layers, lr
		r := Run{State: state, Task: task, Model: model, Step: 10, Steps: 10, Path: path, BitError: be, Config: configJSON(t, c)}
		if be != nil {
			r.Metrics = &Metrics{BitErrorPosition: be, KLBits: kl}
		}
		return r
	}
	return []Run{
		row("a", "hmm", "transformer", "done", 1, 4, 1e-3, f(0.02), f(0.05)),
		row("b", "bijection", "lstm", "done", 2, 4, 3e-3, f(0.4), f(0.9)),
		row("c", "hmm", "mamba", "stopped", 3, 2, 1e-3, f(0.01), f(0.2)),
		row("d", "hmm", "transformer", "failed", 2, 2, 1e-3, nil, nil),
	}
}

func rowPaths(rows []Run) string {
	var p []string
	for _, r := range rows {
		p = append(p, r.Path)
	}
	return strings.Join(p, " ")
}

// TestLsWhere: each operator on row fields, metrics and configuration keys (dot paths,
// any case); numbers compare as numbers; a row without the field matches only !=; the
// conditions all hold.
func TestLsWhere(t *testing.T) {
	rows := lsTestRows(t)
	for _, c := range []struct {
		where []string
		want  string
	}{
		{[]string{"task=hmm"}, "a c d"},
		{[]string{"task!=hmm"}, "b"},
		{[]string{"model=transformer", "task=hmm"}, "a d"},
		{[]string{"state=done"}, "a b"},
		{[]string{"bit_error<0.03"}, "a c"},
		{[]string{"bit_error>=0.02"}, "a b"},
		{[]string{"bit_error!=0.4"}, "a c d"},
		{[]string{"kl_bits>0.1"}, "b c"},
		{[]string{"seed=2"}, "b d"},
		{[]string{"seed=2.0"}, "b d"},
		{[]string{"seed>1", "seed<=2"}, "b d"},
		{[]string{"transformer.layers=2"}, "c d"},
		{[]string{"Transformer.Layers<3"}, "c d"},
		{[]string{"lr=0.003"}, "b"},
		{[]string{"lr>0.001"}, "b"},
		{[]string{"tunnel.K=20"}, "a c d"},
		{[]string{"steps=10", "step>=10"}, "a b c d"},
		{[]string{"task<i"}, "a b c d"},
		{[]string{"task=recall"}, ""},
		{[]string{"steps<1e300"}, "a b c d"},
		{[]string{"steps>1e-300"}, "a b c d"},
		{[]string{"model=NaN"}, ""}, // text keys compare text, NaN included
		{[]string{"note!=Inf"}, "a b c d"},
	} {
		t.Run(strings.Join(c.where, " "), func(t *testing.T) {
			var conds []Condition
			for _, w := range c.where {
				cond, err := ParseWhere(w)
				if err != nil {
					t.Fatal(err)
				}
				conds = append(conds, cond)
			}
			if got := rowPaths(Filter(rows, conds)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestLsWhereErrors: a malformed condition or an unknown key is an error naming it
// and the closest key.
func TestLsWhereErrors(t *testing.T) {
	for _, c := range []struct{ where, want string }{
		{"task", "want KEY=VALUE"},
		{"=hmm", "want KEY=VALUE"},
		{"tsk=hmm", `--where tsk: unknown key (did you mean "task"?)`},
		{"bit_eror<1", `(did you mean "bit_error"?)`},
		{"transformer.layres=2", `(did you mean "transformer.Layers"?)`},
		// numeric keys take a finite number, never NaN (which matched every run with =
		// and none with !=), an infinity or one out of range (which compared as text)
		{"bit_error=NaN", "want a finite number, not NaN"},
		{"bit_error!=nan", "want a finite number, not nan"},
		{"kl_bits>-Inf", "want a finite number, not -Inf"},
		{"seed<infinity", "want a finite number, not infinity"},
		{"steps<1e400", "1e400 is out of range"},
		{"lr>-1e999", "-1e999 is out of range"},
		{"step>=ten", `step is a number; want a number, not "ten"`},
	} {
		_, err := ParseWhere(c.where)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.want)) { // nested keys in either case
			t.Errorf("ParseWhere(%q) = %v, want %q", c.where, err, c.want)
		}
	}
}

// TestLsWhereNonFinite: a run whose number is not finite (a hostile or hand-made
// session) matches only != on that key, never = or an order.
func TestLsWhereNonFinite(t *testing.T) {
	rows := lsTestRows(t)
	nan, inf := math.NaN(), math.Inf(1)
	rows[0].BitError, rows[1].BitError = &nan, &inf
	for _, c := range []struct{ where, want string }{
		{"bit_error=0.02", ""},
		{"bit_error<1", "c"},
		{"bit_error>0", "c"},
		{"bit_error!=0.01", "a b d"},
	} {
		cond, err := ParseWhere(c.where)
		if err != nil {
			t.Fatal(err)
		}
		if got := rowPaths(Filter(rows, []Condition{cond})); got != c.want {
			t.Errorf("%s: got %q, want %q", c.where, got, c.want)
		}
	}
}

// TestLsSort: by a metric, a row field and a configuration key, ascending and reversed;
// rows without the field last either way; ties keep ls's order.
func TestLsSort(t *testing.T) {
	for _, c := range []struct {
		key     string
		reverse bool
		want    string
	}{
		{"bit_error", false, "c a b d"},
		{"bit_error", true, "b a c d"},
		{"kl_bits", false, "a c b d"},
		{"model", false, "b c a d"},
		{"seed", false, "a b d c"},
		{"seed", true, "c b d a"},
		{"transformer.layers", false, "c d a b"},
		{"", true, "d c b a"},
		{"", false, "a b c d"},
	} {
		rows := lsTestRows(t)
		Sort(rows, c.key, c.reverse)
		if got := rowPaths(rows); got != c.want {
			t.Errorf("--sort %q reverse %v: %q, want %q", c.key, c.reverse, got, c.want)
		}
	}
}

// configJSON is the configuration as a session stores it.
func configJSON(t *testing.T, c runconfig.Config) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDescribeWhere: each condition as --where with its text quoted, in order.
func TestDescribeWhere(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"task=hmm"}, `--where "task=hmm"`},
		{[]string{"task=hmm", "steps>=1000", `note!=a "b"`}, `--where "task=hmm" --where "steps>=1000" --where "note!=a \"b\""`},
	} {
		var conds []Condition
		for _, w := range c.in {
			cond, err := ParseWhere(w)
			if err != nil {
				t.Fatal(err)
			}
			conds = append(conds, cond)
		}
		if got := DescribeWhere(conds); got != c.want {
			t.Errorf("%q: %s, want %s", c.in, got, c.want)
		}
	}
}

// TestLsWhereLabels: tag= keeps the runs carrying the tag, tag!= those that do not; name
// compares as text; tag takes no ordering.
func TestLsWhereLabels(t *testing.T) {
	rows := lsTestRows(t)
	rows[0].Labels.Name, rows[0].Labels.Tags = "base", []string{"lr", "ok"}
	rows[2].Labels.Tags = []string{"lr"}
	for _, c := range []struct {
		where []string
		want  string
	}{
		{[]string{"tag=lr"}, "a c"},
		{[]string{"tag=ok"}, "a"},
		{[]string{"tag!=ok"}, "b c d"},
		{[]string{"tag=lr", "tag!=ok"}, "c"},
		{[]string{"name=base"}, "a"},
		{[]string{"name!=base"}, "b c d"},
	} {
		var conds []Condition
		for _, w := range c.where {
			cond, err := ParseWhere(w)
			if err != nil {
				t.Fatal(err)
			}
			conds = append(conds, cond)
		}
		if got := rowPaths(Filter(rows, conds)); got != c.want {
			t.Errorf("%v: %q, want %q", c.where, got, c.want)
		}
	}
	if _, err := ParseWhere("tag<lr"); err == nil || !strings.Contains(err.Error(), "tag takes") {
		t.Errorf("tag<lr: %v", err)
	}
}
