package derived

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestStepsToTarget: the first index strictly below the target (the loss before that
// update), len when never, on constructed curves.
func TestStepsToTarget(t *testing.T) {
	curve := []float64{2.0, 1.5, 1.2, 1.0, 1.0, 0.9}
	for _, c := range []struct {
		target float64
		want   int
	}{
		{2.5, 0},  // below from the start
		{1.5, 2},  // equal is not below
		{1.1, 3},  // the first of two equal values
		{1.0, 5},  // strictly below
		{0.9, 6},  // never: all of the steps
		{-1.0, 6}, // never
	} {
		if got := StepsToTarget(curve, c.target); got != c.want {
			t.Errorf("target %g: %d, want %d", c.target, got, c.want)
		}
	}
	if got := StepsToTarget(nil, 1); got != 0 {
		t.Errorf("empty curve: %d", got)
	}
}

// twoSeeds is a result of two seeds over 4 steps with the final losses below.
func twoSeeds() Timescales {
	return Timescales{Kind: TimescalesKind, Steps: 4, Seeds: []uint64{1, 2}, PerSeed: []TimescalesSeed{
		{Seed: 1, Baseline: TimescalesArm{Losses: []float64{2, 1.8, 1.6, 1.45}, Final: 1.4},
			EM: TimescalesArm{Losses: []float64{2, 1.4, 1.2, 1.1}, Final: 1.0}},
		{Seed: 2, Baseline: TimescalesArm{Losses: []float64{2, 1.9, 1.7, 1.6}, Final: 1.6},
			EM: TimescalesArm{Losses: []float64{2, 1.7, 1.45, 1.3}, Final: 1.2}},
	}}
}

// TestSummarise: target = mean baseline final (1.5); seed 1's baseline is below it at
// index 3, seed 2's never (4); EM-like at 1 and 2; speed-ups 3.5/1.5 and 4/1.5.
func TestSummarise(t *testing.T) {
	r := twoSeeds()
	r.Summarise()
	if r.Target != 1.5 {
		t.Fatalf("target %v, want 1.5", r.Target)
	}
	if got := r.BaselineSteps.Values; got[0] != 3 || got[1] != 4 {
		t.Errorf("baseline steps %v, want [3 4]", got)
	}
	if got := r.EMSteps.Values; got[0] != 1 || got[1] != 2 {
		t.Errorf("EM-like steps %v, want [1 2]", got)
	}
	if math.Abs(r.Speedup-3.5/1.5) > 1e-12 || math.Abs(r.AuthorsSpeedup-4/1.5) > 1e-12 {
		t.Errorf("speed-ups %v, %v; want %v, %v", r.Speedup, r.AuthorsSpeedup, 3.5/1.5, 4/1.5)
	}
	if math.Abs(r.EMSteps.SD-math.Sqrt(0.5)) > 1e-12 || math.Abs(r.FinalEM.Mean-1.1) > 1e-12 {
		t.Errorf("EM-like steps sd %v (want √0.5), final mean %v (want 1.1)", r.EMSteps.SD, r.FinalEM.Mean)
	}
	if r.PerSeed[1].Baseline.StepsToTarget != 4 || r.PerSeed[0].EM.StepsToTarget != 1 {
		t.Errorf("per-seed steps %+v", r.PerSeed)
	}
}

// TestDecodeTimescales: a written result reads back with its statistics recomputed from
// the curves (a doctored speed-up is ignored); files that are not a result are errors that
// say what is wrong, never a panic.
func TestDecodeTimescales(t *testing.T) {
	r := twoSeeds()
	r.Summarise()
	want := r.Speedup
	r.Speedup = 99
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeTimescales(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got.Speedup != want || got.Target != 1.5 {
		t.Errorf("decoded speed-up %v target %v, want %v and 1.5", got.Speedup, got.Target, want)
	}
	bad := func(mod func(*Timescales)) string {
		x := twoSeeds()
		mod(&x)
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for name, c := range map[string]struct{ in, want string }{
		"not json":     {"{", "unexpected end"},
		"other kind":   {bad(func(x *Timescales) { x.Kind = "session" }), "kind"},
		"no seeds":     {bad(func(x *Timescales) { x.PerSeed = nil }), "0 seeds"},
		"short curve":  {bad(func(x *Timescales) { x.PerSeed[1].EM.Losses = x.PerSeed[1].EM.Losses[:2] }), "2 losses"},
		"steps":        {bad(func(x *Timescales) { x.Steps = 0 }), "steps 0"},
		"huge steps":   {bad(func(x *Timescales) { x.Steps = 1 << 40 }), "steps"},
		"wrong type":   {`{"kind":"windtunnel.timescales","steps":"many"}`, "cannot unmarshal"},
		"array of all": {`[]`, "cannot unmarshal"},
	} {
		_, err := DecodeTimescales(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "timescales") {
			t.Errorf("%s: error %v, want one naming timescales and %q", name, err, c.want)
		}
	}
	huge := strings.NewReader(strings.Repeat(" ", maxTimescalesBytes+2))
	if _, err := DecodeTimescales(huge); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("over the size limit: %v", err)
	}
}

// TestTimescalesText: the two seeds' table and the summary, line by line, with the
// numbers Summarise computes (TestSummarise).
func TestTimescalesText(t *testing.T) {
	r := twoSeeds()
	r.Summarise()
	r.Seeds, r.Length, r.Steps, r.LR, r.ValueLR, r.HMin, r.Note, r.WallS = []uint64{1, 2}, 5, 4, 0.01, 10, 1.25, "draws", 2.5
	got := strings.Split(r.Text(), "\n")
	for i, want := range []string{
		"Paper II, two timescales: 2 seeds, 5 symbols each, 4 full-batch steps; baseline 0.01 on every matrix, EM-like 0.1 on W_V",
		"target (mean final baseline loss) 1.5000 nats; H_min 1.2500 nats",
		"",
		"seed    baseline steps   EM-like steps   baseline final    EM-like final",
		"1                    3               1           1.4000           1.0000",
		"2                    4               2           1.6000           1.2000",
		"",
		"steps to 1.5000: baseline 4±1, EM-like 2±1 (mean ± sample sd)",
		"speed-up 2.33× (the authors' way, 4 / EM-like steps: 2.67×; the paper: 2.3×, 430 vs 1,000)",
		"final loss: baseline 1.5000±0.1414, EM-like 1.1000±0.1414; H_min 1.2500",
		"note: draws",
		"wall time 2.5 s",
		"",
	} {
		if i >= len(got) || got[i] != want {
			t.Errorf("line %d: %q, want %q", i, at(got, i), want)
		}
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}
