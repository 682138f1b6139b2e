package derived

import (
	"math"
	"testing"
)

// authorsDense is the authors' dense retrain of their paper-size bijection model (d = 192,
// batch 256, 50k steps), as they published it (experiments/jlens/results/
// phase5_dense_summary.json in their repository): at each checkpoint, the J-lens frame ratio
// against the final frame (mean over the key positions and both sites) and the calibration
// error, which is the bench's bit error (b).
var authorsDense = []DissociationPoint{
	{100, 1.0170, 2.824561}, {200, 1.0243, 0.777789}, {300, 2.2635, 1.043579}, {400, 3.6488, 0.912532},
	{500, 4.2166, 0.648760}, {600, 4.6084, 0.352190}, {700, 4.9103, 0.200698}, {800, 5.1257, 0.141970},
	{900, 5.3120, 0.114978}, {1000, 5.4451, 0.086035}, {1500, 5.9480, 0.064731}, {2000, 6.2394, 0.043367},
	{2500, 6.3173, 0.031618}, {3000, 6.2081, 0.036926}, {3500, 6.2025, 0.036264}, {4000, 6.2748, 0.021537},
	{4500, 6.3283, 0.018281}, {5000, 6.3501, 0.022569}, {6000, 6.4303, 0.012482}, {7000, 3.1924, 0.010107},
	{8000, 4.9896, 0.018733}, {9000, 3.8974, 0.012439}, {10000, 5.0199, 0.009328}, {15000, 6.2310, 0.005646},
	{20000, 6.4104, 0.005036}, {25000, 5.7490, 0.003599}, {30000, 5.8779, 0.003155}, {35000, 5.7344, 0.002162},
	{40000, 5.5517, 0.001379}, {45000, 5.6367, 0.000896}, {50000, 5.6353, 0.000783},
}

// TestDissociationAuthors applies the pre-registered rule to the authors' own trajectory:
// θ = 3 at their width, the frame forms at step 400 (their claim), the ratio stays within
// ±20 % of its final 5.64 from step 10,000 (the dip to 3.19 at 7,000 and 3.90 at 9,000 is
// outside it), and bit error (b) there is 1,165× and 11.9× its final value: the claim holds.
func TestDissociationAuthors(t *testing.T) {
	d := Dissociate(authorsDense, 192.0/20)
	if math.Abs(d.Threshold-3) > 1e-12 {
		t.Errorf("θ = %g, want 3 at the authors' width", d.Threshold)
	}
	if d.FormStep != 400 || d.PlateauStep != 10000 {
		t.Errorf("t_form %d, t_plateau %d; want 400 and 10000", d.FormStep, d.PlateauStep)
	}
	if !d.Holds || math.Abs(d.BitErrorForm/d.BitErrorFinal-1165.4) > 0.1 || math.Abs(d.BitErrorPlateau/d.BitErrorFinal-11.91) > 0.01 {
		t.Errorf("holds %v, factors %.2f and %.3f: %s", d.Holds, d.BitErrorForm/d.BitErrorFinal, d.BitErrorPlateau/d.BitErrorFinal, d.Why)
	}
}

// TestDissociate covers the rule's other outcomes on constructed trajectories.
func TestDissociate(t *testing.T) {
	pts := func(ratios, bits []float64) []DissociationPoint {
		out := make([]DissociationPoint, len(ratios))
		for i := range ratios {
			out[i] = DissociationPoint{Step: 100 * (i + 1), Ratio: ratios[i], BitError: bits[i]}
		}
		return out
	}
	cases := []struct {
		name          string
		ratios, bits  []float64
		ceiling       float64
		form, plateau int
		holds         bool
	}{
		// Never at θ = 3: no formation, the claim fails.
		{"never formed", []float64{1, 1.5, 2, 2.5}, []float64{1, 0.5, 0.1, 0.01}, 9.6, -1, 300, false},
		// Formed while bit error was already near its end: the frame did not come first.
		{"formed late", []float64{1, 1.2, 1.5, 4, 4.2}, []float64{1, 0.5, 0.1, 0.012, 0.01}, 9.6, 400, 400, false},
		// Formed early, but the plateau is reached only where bit error is final: no tail.
		{"no tail after the plateau", []float64{1, 3.5, 4, 4.5, 6}, []float64{2, 1, 0.5, 0.2, 0.01}, 9.6, 200, 500, false},
		// Quick width (d = 64, ceiling 3.2): θ = 1 + 2·2.2/8.6 ≈ 1.51.
		{"scaled threshold", []float64{1, 1.6, 2.0, 2.1, 2.1}, []float64{2, 1, 0.1, 0.05, 0.01}, 3.2, 200, 300, true},
		// A dip below θ after forming moves t_form past it.
		{"dip", []float64{1, 4, 2, 4, 4}, []float64{5, 2, 1, 0.5, 0.01}, 9.6, 400, 400, true},
	}
	for _, c := range cases {
		d := Dissociate(pts(c.ratios, c.bits), c.ceiling)
		if d.FormStep != c.form || d.PlateauStep != c.plateau || d.Holds != c.holds {
			t.Errorf("%s: t_form %d t_plateau %d holds %v (%s); want %d %d %v", c.name, d.FormStep, d.PlateauStep, d.Holds, d.Why, c.form, c.plateau, c.holds)
		}
	}
	if th, scaled := FrameThreshold(3.2); math.Abs(th-(1+2*2.2/8.6)) > 1e-12 || !scaled {
		t.Errorf("θ at ceiling 3.2 = %g (scaled %v)", th, scaled)
	}
	if v := DissociationOver([]Dissociation{{Holds: true}, {Holds: true}}); v.Decided || v.Holds {
		t.Errorf("two seeds decided a verdict: %+v", v)
	}
	if v := DissociationOver([]Dissociation{{Holds: true}, {Holds: false}, {Holds: true}}); !v.Decided || !v.Holds || v.Held != 2 {
		t.Errorf("2 of 3 seeds: %+v, want decided and holding", v)
	}
	if v := DissociationOver([]Dissociation{{Holds: true}, {}, {}, {Holds: true}}); v.Holds {
		t.Errorf("2 of 4 seeds is no majority: %+v", v)
	}
}
