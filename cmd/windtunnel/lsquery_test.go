package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"windtunnel/lab/runconfig"
	"windtunnel/sessions"
)

// lsTestRows are four runs: three finished with evaluations, one without.
func lsTestRows(t *testing.T) []lsRow {
	t.Helper()
	f := func(x float64) *float64 { return &x }
	row := func(path, task, model, state string, seed uint64, layers int, lr float64, be, kl *float64) lsRow {
		c, err := runconfig.Preset(runconfig.PresetQuick, task)
		if err != nil {
			t.Fatal(err)
		}
		c.Model, c.Seed, c.Transformer.Layers, c.LR = model, seed, layers, lr
		r := lsRow{State: state, Task: task, Model: model, Step: 10, Steps: 10, Path: path, BitError: be, Config: json.RawMessage(configJSON(t, c))}
		if be != nil {
			r.Metrics = &lsMetrics{BitErrorPosition: be, KLBits: kl}
		}
		return r
	}
	return []lsRow{
		row("a", "hmm", "transformer", "done", 1, 4, 1e-3, f(0.02), f(0.05)),
		row("b", "bijection", "lstm", "done", 2, 4, 3e-3, f(0.4), f(0.9)),
		row("c", "hmm", "mamba", "stopped", 3, 2, 1e-3, f(0.01), f(0.2)),
		row("d", "hmm", "transformer", "failed", 2, 2, 1e-3, nil, nil),
	}
}

func rowPaths(rows []lsRow) string {
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
	} {
		t.Run(strings.Join(c.where, " "), func(t *testing.T) {
			var conds []lsCondition
			for _, w := range c.where {
				cond, err := parseWhere(w)
				if err != nil {
					t.Fatal(err)
				}
				conds = append(conds, cond)
			}
			if got := rowPaths(filterRows(rows, conds)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestLsWhereErrors: a malformed condition or an unknown key is a usage error naming it
// and the closest key.
func TestLsWhereErrors(t *testing.T) {
	for _, c := range []struct{ where, want string }{
		{"task", "want KEY=VALUE"},
		{"=hmm", "want KEY=VALUE"},
		{"tsk=hmm", `--where tsk: unknown key (did you mean "task"?)`},
		{"bit_eror<1", `(did you mean "bit_error"?)`},
		{"transformer.layres=2", `(did you mean "transformer.Layers"?)`},
	} {
		_, err := parseWhere(c.where)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.want)) { // nested keys in either case
			t.Errorf("parseWhere(%q) = %v, want %q", c.where, err, c.want)
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
		sortRows(rows, c.key, c.reverse)
		if got := rowPaths(rows); got != c.want {
			t.Errorf("--sort %q reverse %v: %q, want %q", c.key, c.reverse, got, c.want)
		}
	}
}

// lsSession writes a finished session of task and model with a final evaluation of bit
// error be, in dir.
func lsSession(t *testing.T, dir, name, task, model string, seed uint64, be float64) string {
	t.Helper()
	cfg, err := runconfig.Preset(runconfig.PresetQuick, task)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model, cfg.Seed = model, seed
	path := filepath.Join(dir, name)
	w, err := sessions.Create(path, sessions.Meta{Task: task, Model: model, Steps: 5, Config: json.RawMessage(configJSON(t, cfg))}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 5, State: sessions.Done, Eval: &sessions.Eval{BitErrorPosition: be, KLBits: 2 * be, Accuracy: 0.5}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLsFilterSortCLI: ls --where/--sort/--reverse on real sessions, as a table (the sort
// key's column added) and as JSON (metrics and configuration in every row).
func TestLsFilterSortCLI(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // no live runs of others
	dir := t.TempDir()
	now := time.Now()
	for i, s := range []struct {
		name, task, model string
		seed              uint64
		be                float64
	}{
		{"h1.wtlab", "hmm", "transformer", 1, 0.03},
		{"h2.wtlab", "hmm", "lstm", 2, 0.30},
		{"h3.wtlab", "hmm", "transformer", 3, 0.01},
		{"b1.wtlab", "bijection", "transformer", 1, 0.002},
	} {
		p := lsSession(t, dir, s.name, s.task, s.model, s.seed, s.be)
		mt := now.Add(-time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runCLI("ls", "--dir", dir, "--where", "task=hmm", "--sort", "bit_error", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []lsRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rows {
		names = append(names, filepath.Base(r.Path))
		if r.Metrics == nil || r.Metrics.KLBits == nil || *r.Metrics.KLBits != 2**r.BitError || len(r.Config) == 0 {
			t.Errorf("row %s lacks its metrics or configuration: %+v", r.Path, r)
		}
	}
	if want := []string{"h3.wtlab", "h1.wtlab", "h2.wtlab"}; !slices.Equal(names, want) {
		t.Errorf("--where task=hmm --sort bit_error: %v, want %v", names, want)
	}
	code, out, _ = runCLI("ls", "--dir", dir, "--where", "model=transformer", "--sort", "seed", "--reverse")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 4 || !strings.Contains(lines[0], "SEED") || !strings.Contains(lines[1], "h3.wtlab") ||
		!strings.Contains(lines[1], " 3 ") {
		t.Errorf("--sort seed --reverse: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("ls", "--dir", dir, "--where", "accuracy>0.9")
	if code != 0 || !strings.Contains(out, `none of the 4 runs listed matches --where "accuracy>0.9"`) {
		t.Errorf("nothing matches: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI("ls", "--dir", dir, "--sort", "bit_eror"); code != 2 || !strings.Contains(errs, `did you mean "bit_error"?`) {
		t.Errorf("--sort with a misspelt key: exit %d, %s", code, errs)
	}
}
