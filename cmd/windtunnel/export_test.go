package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestExportWhat exports every kind of row of a short run in both formats and checks the
// columns (CSV header, JSON keys) each promises.
func TestExportWhat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	if code, _, errs := runCLI(append([]string{"run", "--headless", "--steps", "60", "--out", path}, tinyRun...)...); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	cases := []struct {
		what, format string
		want         []string // CSV header columns or keys of the first JSON line
	}{
		{"scalars", "csv", []string{"step", "wall_s", "loss", "lr", "grad_norm", "steps_per_s", "gpu_share", "state", "bit_error_position", "bit_error_sample", "kl_bits", "tvd", "accuracy", "ablated", "message"}},
		{"scalars", "jsonl", []string{"step", "wall_s", "loss", "lr", "grad_norm", "steps_per_s", "gpu_share", "state"}},
		{"per-position", "csv", []string{"step", "ablated", "position", "model_entropy_bits", "bayes_entropy_bits", "bit_error_bits", "kl_bits", "tvd"}},
		{"per-position", "jsonl", []string{"step", "ablated", "position", "model_entropy_bits", "bayes_entropy_bits", "bit_error_bits", "kl_bits", "tvd"}},
		{"snapshots", "jsonl", []string{"step", "wall_s", "snapshot"}},
		{"events", "csv", []string{"step", "wall_s", "kind", "layer", "head", "on", "by"}},
		{"events", "jsonl", nil}, // a run without operator actions has none
	}
	for _, c := range cases {
		t.Run(c.what+" "+c.format, func(t *testing.T) {
			code, out, errs := runCLI("export", path, "--what", c.what, "--format", c.format)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			first, _, _ := strings.Cut(out, "\n")
			if c.format == "csv" {
				if first != strings.Join(c.want, ",") {
					t.Errorf("header %q, want %q", first, strings.Join(c.want, ","))
				}
				return
			}
			if c.want == nil {
				return
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(first), &m); err != nil {
				t.Fatalf("%q: %v", first, err)
			}
			for _, k := range c.want {
				if _, ok := m[k]; !ok {
					t.Errorf("first line lacks %q: %s", k, first)
				}
			}
		})
	}
	if code, _, errs := runCLI("export", path, "--what", "snapshots", "--format", "csv"); code != exitUsage {
		t.Errorf("snapshots as csv: exit %d, %s", code, errs)
	}
}

// TestExportPerPositionKL exports a fresh run's per-position curves in both formats and
// checks the kl_bits and tvd columns against the session's evaluations, row by row.
func TestExportPerPositionKL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	if code, _, errs := runCLI(append([]string{"run", "--headless", "--steps", "60", "--out", path}, tinyRun...)...); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := r.Evals(-1, 0)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ kl, tvd float64 }
	var rows []want
	for _, rec := range evs {
		e := rec.Eval
		if len(e.KLByPosition) != len(e.ModelEntropy) || len(e.TVDByPosition) != len(e.ModelEntropy) {
			t.Fatalf("step %d: %d KLs, %d TVDs for %d positions", rec.Step, len(e.KLByPosition), len(e.TVDByPosition), len(e.ModelEntropy))
		}
		for p := range e.ModelEntropy {
			rows = append(rows, want{float64(e.KLByPosition[p]), float64(e.TVDByPosition[p])})
		}
	}
	if len(rows) == 0 {
		t.Fatal("no evaluations recorded")
	}
	near := func(what string, i int, got, want float64) {
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("row %d: %s %v, session %v", i, what, got, want)
		}
	}

	code, out, errs := runCLI("export", path, "--what", "per-position", "--format", "csv")
	if code != 0 {
		t.Fatalf("csv: exit %d: %s", code, errs)
	}
	tab, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab) != len(rows)+1 || tab[0][6] != "kl_bits" || tab[0][7] != "tvd" {
		t.Fatalf("csv: %d rows, header %v; want %d rows", len(tab)-1, tab[0], len(rows))
	}
	for i, w := range rows {
		kl, err1 := strconv.ParseFloat(tab[i+1][6], 64)
		tv, err2 := strconv.ParseFloat(tab[i+1][7], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("csv row %d: %v", i, tab[i+1])
		}
		near("csv kl_bits", i, kl, w.kl)
		near("csv tvd", i, tv, w.tvd)
	}

	code, out, errs = runCLI("export", path, "--what", "per-position", "--format", "jsonl")
	if code != 0 {
		t.Fatalf("jsonl: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(rows) {
		t.Fatalf("jsonl: %d lines, want %d", len(lines), len(rows))
	}
	for i, w := range rows {
		var m struct {
			KL  *float64 `json:"kl_bits"`
			TVD *float64 `json:"tvd"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil || m.KL == nil || m.TVD == nil {
			t.Fatalf("jsonl line %d: %s (%v)", i, lines[i], err)
		}
		near("jsonl kl_bits", i, *m.KL, w.kl)
		near("jsonl tvd", i, *m.TVD, w.tvd)
	}
}

// TestExportPerPositionKLOldSession exports the checked-in fixture, written before the
// per-position KL and TVD were recorded: the columns are there, empty (null in JSON Lines).
func TestExportPerPositionKLOldSession(t *testing.T) {
	const fixture = "../../tui/testdata/fixture.wtlab"
	code, out, errs := runCLI("export", fixture, "--what", "per-position", "--format", "csv")
	if code != 0 {
		t.Fatalf("csv: exit %d: %s", code, errs)
	}
	tab, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab) < 2 || strings.Join(tab[0], ",") != "step,ablated,position,model_entropy_bits,bayes_entropy_bits,bit_error_bits,kl_bits,tvd" {
		t.Fatalf("csv: %d rows, header %v", len(tab)-1, tab[0])
	}
	for i, row := range tab[1:] {
		if row[3] == "" || row[6] != "" || row[7] != "" {
			t.Fatalf("csv row %d: %v, want entropies and empty kl_bits, tvd", i, row)
		}
	}
	code, out, errs = runCLI("export", fixture, "--what", "per-position", "--format", "jsonl")
	if code != 0 {
		t.Fatalf("jsonl: exit %d: %s", code, errs)
	}
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if v, ok := m["kl_bits"]; !ok || v != nil {
			t.Fatalf("jsonl line %d: kl_bits %v (present %v), want null", i, v, ok)
		}
		if v, ok := m["tvd"]; !ok || v != nil {
			t.Fatalf("jsonl line %d: tvd %v (present %v), want null", i, v, ok)
		}
	}
}
