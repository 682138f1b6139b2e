package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbeFrameRatio is probe's command-line smoke test: a tiny transformer with geometry
// snapshots and checkpoints at the same steps, probed at step 8, prints the report as JSON
// (the step, the J-lens ratio per site and the recorded ratio series) and as text with the
// frame table. What the numbers are is lab/probe's TestFrameRatio.
func TestProbeFrameRatio(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.wtlab")
	args := []string{"run", "--headless", "--v", "6", "--layers", "2", "--heads", "2", "--width", "16", "--batch", "8",
		"--probe", "24", "--steps", "12", "--eval-every", "4", "--probe-every", "4", "--checkpoint-every", "4",
		"--geometry-n", "8", "--out", path}
	if code, _, errs := runCLI(args...); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI("probe", path, "--step", "8", "--json")
	var rep struct {
		Step       int       `json:"step"`
		Ratio      []float64 `json:"jlens_ratio"`
		FrameRatio *struct {
			Points []struct {
				Step int `json:"step"`
			} `json:"points"`
		} `json:"frame_ratio"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("probe: exit %d\n%s%s", code, out, errs)
	}
	if rep.Step != 8 || len(rep.Ratio) != 2 || rep.FrameRatio == nil || len(rep.FrameRatio.Points) != 3 {
		t.Fatalf("probe at step %d: ratio %v, frame ratio %+v", rep.Step, rep.Ratio, rep.FrameRatio)
	}
	code, out, _ = runCLI("probe", path)
	if code != 0 || !strings.Contains(out, "frame, authors' (J-lens overlap") || !strings.Contains(out, "block 0") {
		t.Errorf("probe text: exit %d\n%s", code, out)
	}
}
