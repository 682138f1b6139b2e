package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
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
		{"per-position", "csv", []string{"step", "ablated", "position", "model_entropy_bits", "bayes_entropy_bits", "bit_error_bits"}},
		{"per-position", "jsonl", []string{"step", "ablated", "position", "model_entropy_bits", "bayes_entropy_bits", "bit_error_bits"}},
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
