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
	"windtunnel/sessions/index"
)

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
	var rows []index.Run
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
