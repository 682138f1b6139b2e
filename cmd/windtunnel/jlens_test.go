package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbeFrameRatio runs a tiny transformer with geometry snapshots and checkpoints at
// the same steps, and probes it: the JSON carries the recorded J-lens ratio series (current
// and final frame, per site) and the ratio recomputed at the probed checkpoint, which equals
// the one recorded at that step; the final frame's ratio at the last snapshot is the
// current frame's. The text has the frame table.
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
		Sites      []int     `json:"jlens_sites"`
		Ratio      []float64 `json:"jlens_ratio"`
		FrameRatio *struct {
			Sites     []int   `json:"sites"`
			Null      float64 `json:"null"`
			Threshold float64 `json:"threshold"`
			Points    []struct {
				Step    int       `json:"step"`
				Current []float64 `json:"current"`
				Final   []float64 `json:"final"`
			} `json:"points"`
		} `json:"frame_ratio"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("probe: exit %d\n%s%s", code, out, errs)
	}
	fr := rep.FrameRatio
	if fr == nil || len(fr.Points) != 3 || len(fr.Sites) != 2 || fr.Sites[0] != -1 || fr.Sites[1] != 0 {
		t.Fatalf("frame ratio %+v", fr)
	}
	// A frame of 6 values at width 16: null max(6, 8)/16.
	if math.Abs(fr.Null-0.5) > 1e-12 || fr.Threshold >= 3 {
		t.Errorf("null %g, threshold %g: want 0.5 and a scaled threshold (1/null = 2 < 3)", fr.Null, fr.Threshold)
	}
	if rep.Step != 8 || len(rep.Ratio) != 2 {
		t.Fatalf("probe at step %d: ratio %v", rep.Step, rep.Ratio)
	}
	for _, p := range fr.Points {
		if p.Step == 8 {
			for i := range rep.Ratio {
				if math.Abs(rep.Ratio[i]-p.Current[i]) > 1e-9 {
					t.Errorf("site %d: probed %.12g, recorded %.12g", fr.Sites[i], rep.Ratio[i], p.Current[i])
				}
			}
		}
	}
	last := fr.Points[len(fr.Points)-1]
	for i := range last.Current {
		if math.Abs(last.Current[i]-last.Final[i]) > 1e-5 { // the final basis is stored in float32
			t.Errorf("last snapshot: current %g, final %g", last.Current[i], last.Final[i])
		}
	}
	code, out, _ = runCLI("probe", path)
	if code != 0 || !strings.Contains(out, "frame, authors' (J-lens overlap") || !strings.Contains(out, "block 0") {
		t.Errorf("probe text: exit %d\n%s", code, out)
	}
}

// TestProbeFirstSnapshotAtChance probes a quick bijection run at step 1: the authors' frame
// statistic of an untrained model is at chance, within 1 ± 0.3 at both sites (the
// statistic this replaced read 1.4 and 1.95 there, with the tied head's direct path).
func TestProbeFirstSnapshotAtChance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.wtlab")
	if code, _, errs := runCLI("run", "--headless", "--steps", "2", "--checkpoint-every", "1", "--probe-every", "1",
		"--eval-every", "1", "--probe", "64", "--geometry-n", "8", "--out", path); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI("probe", path, "--step", "1", "--json")
	var rep struct {
		Step  int       `json:"step"`
		Ratio []float64 `json:"jlens_ratio"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("probe: exit %d\n%s%s", code, out, errs)
	}
	if rep.Step != 1 || len(rep.Ratio) != 2 {
		t.Fatalf("probe at step %d: ratios %v", rep.Step, rep.Ratio)
	}
	for i, r := range rep.Ratio {
		if math.Abs(r-1) > 0.3 {
			t.Errorf("site %d: ratio %.3f at step 1, want 1 ± 0.3", i, r)
		}
	}
}
