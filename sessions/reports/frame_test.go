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
	key, err := derived.KeyOf(c)
	if err != nil {
		t.Fatal(err)
	}
	r := Run{SessionRun: derived.SessionRun{Config: c, Score: derived.RunScore{Task: c.Task, Model: arch.KindTransformer, Seed: seed, Key: key}},
		File: "s.wtlab"}
	for i, v := range curve {
		r.Curve = append(r.Curve, derived.StepValue{Step: 100 * (i + 1), V: v})
	}
	return r
}

func TestFrameRows(t *testing.T) {
	// Three seeds at a ceiling of 5 (θ = 1 + 2·4/8.6 ≈ 1.93); bit error (b) 1, 0.5, 0.2, 0.1, 0.01.
	bits := []float64{1, 0.5, 0.2, 0.1, 0.01}
	mk := func(seed uint64, ratios []float64) Run {
		r := runOf(t, 1, seed, bits...)
		fr := &derived.FrameRatios{Sites: []int{-1, 0}, Null: 0.2, Max: 5, Seqs: 32}
		fr.Threshold, fr.Scaled = derived.FrameThreshold(fr.Max)
		for i, v := range ratios {
			fr.Points = append(fr.Points, derived.FramePoint{Step: 100 * (i + 1), Current: []float64{v, v}, Final: []float64{v - 0.2, v + 0.2}, MeanFinal: v})
		}
		r.FrameRatio = fr
		d := fr.Dissociation(func(step int) float64 { return bits[step/100-1] })
		r.Dissociation = &d
		return r
	}
	runs := []Run{
		mk(1, []float64{1, 2.5, 3, 3.1, 3.1}),   // forms at 200 (0.5 = 50× final), plateau 200: holds
		mk(2, []float64{1, 1.2, 2.5, 3, 3}),     // forms at 300 (20×), plateau 300 (20×): holds
		mk(3, []float64{1, 1.2, 1.3, 1.5, 1.6}), // never reaches θ: fails
	}
	rows := frameRows(runs)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if rows[0].Verdict != Reproduced || !strings.Contains(rows[0].Reason, "2/3 seeds at or above θ = 1.93") {
		t.Errorf("frame row %+v", rows[0])
	}
	if rows[1].Verdict != Reproduced || !strings.Contains(rows[1].Reason, "holds in 2/3 seeds") || !strings.Contains(rows[1].Reason, "never formed") {
		t.Errorf("dissociation row %+v", rows[1])
	}
	// Two seeds do not decide.
	if rows := frameRows(runs[:2]); rows[1].Verdict != NotMeasured || !strings.Contains(rows[1].Reason, "2 seed(s); the rule decides on ≥ 3") {
		t.Errorf("two seeds: %+v", rows[1])
	}
}

// TestDissociationRowOrder (issue 49): where t_plateau comes before t_form the row says so and
// why, rather than printing "t_form 300, t_plateau 200" without a word.
func TestDissociationRowOrder(t *testing.T) {
	bits := []float64{1, 0.5, 0.1, 0.01}
	var runs []Run
	for seed := uint64(1); seed <= 3; seed++ {
		r := runOf(t, 1, seed, bits...)
		fr := &derived.FrameRatios{Sites: []int{-1}, Null: 0.2, Max: 5, Seqs: 8}
		fr.Threshold, fr.Scaled = derived.FrameThreshold(fr.Max)
		for i, v := range []float64{1, 1.7, 2.0, 2.0} { // within ±20 % of 2.0 from 200, ≥ θ 1.93 from 300
			fr.Points = append(fr.Points, derived.FramePoint{Step: 100 * (i + 1), Final: []float64{v}, MeanFinal: v})
		}
		r.FrameRatio = fr
		d := fr.Dissociation(func(step int) float64 { return bits[step/100-1] })
		r.Dissociation = &d
		runs = append(runs, r)
	}
	row := frameRows(runs)[1]
	if !strings.Contains(row.Measured, "t_form 300 ± 0 (n=3), t_plateau 200 ± 0 (n=3)") || !strings.Contains(row.Measured, "t_plateau precedes t_form") ||
		!strings.Contains(row.Reason, "the frame formed after the ratio reached its plateau") {
		t.Errorf("measured %q, reason %q", row.Measured, row.Reason)
	}
}
