package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"windtunnel/lab/bench"
)

// TestBenchParsesReference runs bench's quick row against a stand-in reference and a
// stand-in Python, so the row's PyTorch columns are checked where torch is not installed.
func TestBenchParsesReference(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, bench.TorchScriptName)
	if err := os.WriteFile(script, []byte("# stand-in\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Threads 1 answers 30 ms a step, threads 2 answers 20; `-c import torch` succeeds.
	py := filepath.Join(dir, "python")
	body := "#!/bin/sh\n[ \"$1\" = -c ] && exit 0\ncase \"$*\" in *\"--threads 2\"*) m=20 ;; *) m=30 ;; esac\n" +
		"echo '{\"step\": 1}'\necho \"{\\\"median_ms_per_step\\\": $m}\"\n"
	if err := os.WriteFile(py, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("bench", "--presets", "quick", "--steps", "5", "--torch-script", script, "--python", py, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var row bench.Row
	if err := json.Unmarshal([]byte(out), &row); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if row.TorchErr != "" || row.TorchMs != 20 || row.TorchThreads != 2 || !reflect.DeepEqual(row.TorchBoth, []float64{30, 20}) ||
		math.Abs(row.Ratio-row.OursMs/20) > 1e-12 {
		t.Errorf("row %+v: want PyTorch 20 ms at 2 threads (30 / 20), ratio windtunnel/20", row)
	}
	code, _, errs = runCLI("bench", "--presets", "quick", "--steps", "5", "--torch-script", filepath.Join(dir, "absent.py"))
	if code != 2 || !strings.Contains(errs, "--torch-script") {
		t.Errorf("missing --torch-script: exit %d, %q; want 2 naming the flag", code, errs)
	}
}
