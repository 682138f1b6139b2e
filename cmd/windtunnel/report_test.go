package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"windtunnel/sessions/runconfig"

	"windtunnel/sessions"
)

// TestReportCLI writes a report from a folder holding one finished fake session, and checks
// the usage errors: no argument (exit 2), a missing path (exit 1, named once).
func TestReportCLI(t *testing.T) {
	dir := t.TempDir()
	steps := quickMLPSteps(t)
	writeQuickMLP(t, filepath.Join(dir, "bijection-mlp-s1.wtlab"), sessions.Record{Step: steps, State: sessions.Done,
		Eval: &sessions.Eval{BitErrorPosition: 1.1073, BitErrorSample: 1.1073, Accuracy: 0.5}})
	out := filepath.Join(t.TempDir(), "rep")
	code, stdout, errs := runCLI("report", dir, "--out", out)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(stdout, "report.md") {
		t.Fatalf("report.md: %v (stdout %q)", err, stdout)
	}
	if !strings.Contains(string(b), "bijection-mlp-s1.wtlab") || !strings.Contains(string(b), "windtunnel compare --preset quick --tasks bijection --models mlp --seeds 1 --out "+dir) {
		t.Errorf("report:\n%s", b)
	}
	if code, _, errs := runCLI("report"); code != 2 {
		t.Errorf("report without arguments: exit %d, %q", code, errs)
	}
	missing := filepath.Join(dir, "nope.wtlab")
	if code, _, errs := runCLI("report", missing, "--out", out); code != 1 || strings.Count(errs, missing) != 1 {
		t.Errorf("report of a missing path: exit %d, %q", code, errs)
	}
}

// quickMLPSteps is the planned length of the quick bijection MLP configuration.
func quickMLPSteps(t *testing.T) int {
	t.Helper()
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Steps
}

// writeQuickMLP writes a session of the quick bijection MLP configuration at path holding
// the one record rec (a finished run when rec is done at the planned step).
func writeQuickMLP(t *testing.T, path string, rec sessions.Record) {
	t.Helper()
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model = "mlp"
	raw, _ := json.Marshal(cfg)
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "mlp", Steps: cfg.Steps, Config: raw}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(rec)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
