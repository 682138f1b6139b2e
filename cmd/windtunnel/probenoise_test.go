package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbeNoise: probe --noise-sets scores a tiny run's last checkpoint on that many
// probe sets of --noise-n sequences: as many bit errors (b), none equal to all the others
// (the sets differ), their mean and sample standard deviation; a set count of 1 is refused.
func TestProbeNoise(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n.wtlab")
	args := []string{"run", "--headless", "--v", "6", "--layers", "1", "--heads", "2", "--width", "16", "--batch", "8",
		"--probe", "24", "--steps", "8", "--eval-every", "4", "--probe-every", "0", "--checkpoint-every", "4", "--out", path}
	if code, _, errs := runCLI(args...); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI("probe", path, "--noise-sets", "3", "--noise-n", "16", "--json")
	var rep struct {
		Step int       `json:"step"`
		N    int       `json:"probe_n"`
		B    []float64 `json:"bit_error_sample"`
		Mean float64   `json:"bit_error_sample_mean"`
		SD   float64   `json:"bit_error_sample_sd"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("probe --noise-sets: exit %d: %s%s", code, out, errs)
	}
	if rep.Step != 8 || rep.N != 16 || len(rep.B) != 3 || rep.B[0] == rep.B[1] && rep.B[1] == rep.B[2] {
		t.Fatalf("report %s", out)
	}
	mean := (rep.B[0] + rep.B[1] + rep.B[2]) / 3
	ss := 0.0
	for _, b := range rep.B {
		ss += (b - mean) * (b - mean)
	}
	if math.Abs(rep.Mean-mean) > 1e-12 || math.Abs(rep.SD-math.Sqrt(ss/2)) > 1e-12 {
		t.Errorf("mean %g, sd %g; want %g, %g", rep.Mean, rep.SD, mean, math.Sqrt(ss/2))
	}
	if code, _, errs := runCLI("probe", path, "--noise-sets", "1"); code != 2 || !strings.Contains(errs, "--noise-sets 1 out of range") {
		t.Errorf("--noise-sets 1: exit %d: %s", code, errs)
	}
}
