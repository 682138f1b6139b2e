package runconfig

import (
	"testing"

	"windtunnel/tunnels"
)

// TestFitCadence checks that every preset keeps its cadences at its own length (but quick
// hmm, evaluated 12 times instead of 6) and that a shorter run gets at least 12
// evaluations, 6 geometry snapshots and 3 checkpoints; off stays off.
func TestFitCadence(t *testing.T) {
	for _, name := range PresetNames() {
		for _, task := range tunnels.Names() {
			c, err := Preset(name, task)
			if err != nil {
				t.Fatal(err)
			}
			f := c.FitCadence()
			wantEval := c.EvalEvery
			if name == PresetQuick && task == "hmm" {
				wantEval = 125
			}
			if f.EvalEvery != wantEval || f.ProbeEvery != c.ProbeEvery || f.CheckpointEvery != c.CheckpointEvery {
				t.Errorf("%s %s at %d steps: every %d/%d/%d, want %d/%d/%d", name, task, c.Steps, f.EvalEvery, f.ProbeEvery,
					f.CheckpointEvery, wantEval, c.ProbeEvery, c.CheckpointEvery)
			}
			for _, steps := range []int{1, 7, 300, 2999} {
				c.Steps = steps
				f := c.FitCadence()
				if steps/f.EvalEvery < min(12, steps) || steps/f.ProbeEvery < min(6, steps) || steps/f.CheckpointEvery < min(3, steps) {
					t.Errorf("%s %s at %d steps: every %d/%d/%d", name, task, steps, f.EvalEvery, f.ProbeEvery, f.CheckpointEvery)
				}
			}
		}
	}
	c, _ := Preset(PresetQuick, "bijection")
	c.Steps, c.ProbeEvery, c.CheckpointEvery = 300, 0, 0
	if f := c.FitCadence(); f.ProbeEvery != 0 || f.CheckpointEvery != 0 {
		t.Errorf("off cadences turned on: %d, %d", f.ProbeEvery, f.CheckpointEvery)
	}
}
