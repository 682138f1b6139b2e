package reports

import (
	"strings"
	"testing"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/sessions/derived"
)

// runOf is a transformer bijection run of the quick preset with the value LR multiplier, seed
// and bit error curve given (one evaluation every 100 steps).
func runOf(t *testing.T, valueLR float64, seed uint64, curve ...float64) Run {
	t.Helper()
	c, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	c.ValueLR, c.Seed = valueLR, seed
	key, err := c.Key()
	if err != nil {
		t.Fatal(err)
	}
	r := Run{SessionRun: runconfig.SessionRun{Config: c, Score: derived.RunScore{Task: c.Task, Model: arch.KindTransformer, Seed: seed, Key: key}},
		File: "s.wtlab"}
	for i, v := range curve {
		r.Curve = append(r.Curve, derived.StepValue{Step: 100 * (i + 1), V: v})
	}
	return r
}

func TestFrameRows(t *testing.T) {
	mk := func(seed uint64, final []float64, settle int) Run {
		r := runOf(t, 1, seed, 1.0, 0.5, 0.2, 0.1, 0.05)
		fr := &derived.FrameRatios{Sites: []int{-1, 0}, Null: 0.2, Max: 5, Threshold: 3, SettleFinal: settle, Site: 1}
		for i, v := range final {
			fr.Points = append(fr.Points, derived.FramePoint{Step: 100 * (i + 1), Current: []float64{v, v}, Final: []float64{v, v + 0.2}})
		}
		r.FrameRatio = fr
		return r
	}
	// Finals at the frame's site (block 0) are v + 0.2: 3.8 passes, 2.4 does not.
	runs := []Run{mk(1, []float64{1, 3.5, 3.6}, 200), mk(2, []float64{1, 2, 2.2}, 300)}
	rows := frameRows(runs)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if rows[0].Verdict != NotReproduced || !strings.Contains(rows[0].Reason, "1/2 seeds at or above 3.00") {
		t.Errorf("frame row %+v", rows[0])
	}
	// Seed 1: frame at 200 (bit error 0.5) → 0.05 at the end: dissociated; seed 2 at 300 (0.2 → 0.05).
	if rows[1].Verdict != Reproduced || !strings.Contains(rows[1].Reason, "2/2 seeds") {
		t.Errorf("dissociation row %+v", rows[1])
	}
}
