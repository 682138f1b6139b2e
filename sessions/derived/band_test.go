package derived

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestSeedBand checks the band's mean, standard deviation and clipped edges on constructed
// curves: the union of the seeds' steps, interpolation inside a seed's points, nothing
// outside them, non-finite values left out.
func TestSeedBand(t *testing.T) {
	c1 := []StepValue{{10, 1}, {20, 3}}
	c2 := []StepValue{{10, 3}, {20, 5}}
	c3 := []StepValue{{15, 4}, {25, 6}}
	got := SeedBand([][]StepValue{c1, c2, c3})
	// step 10: c1 1, c2 3 (c3 not yet): mean 2, sd √2, edges clipped to [1, 3]. step 15: c1
	// 2 and c2 4 (interpolated), c3 4: mean 10/3, sd √(4/3), upper edge clipped to 4. step
	// 20: c1 3, c2 5, c3 5 (interpolated): mean 13/3, sd √(4/3), upper edge 5. step 25: c3
	// alone: mean 6, sd 0.
	s43 := math.Sqrt(4.0 / 3)
	want := []BandPoint{
		{Step: 10, Mean: 2, SD: math.Sqrt2, Lo: 1, Hi: 3, N: 2, Lowest: 1, High: 3},
		{Step: 15, Mean: 10.0 / 3, SD: s43, Lo: 10.0/3 - s43, Hi: 4, N: 3, Lowest: 2, High: 4},
		{Step: 20, Mean: 13.0 / 3, SD: s43, Lo: 13.0/3 - s43, Hi: 5, N: 3, Lowest: 3, High: 5},
		{Step: 25, Mean: 6, SD: 0, Lo: 6, Hi: 6, N: 1, Lowest: 6, High: 6},
	}
	if len(got) != len(want) {
		t.Fatalf("band %+v, want %+v", got, want)
	}
	for i, w := range want {
		g := got[i]
		if g.Step != w.Step || g.N != w.N || !near(g.Mean, w.Mean) || !near(g.SD, w.SD) || !near(g.Lo, w.Lo) ||
			!near(g.Hi, w.Hi) || !near(g.Lowest, w.Lowest) || !near(g.High, w.High) {
			t.Errorf("point %d: %+v, want %+v", i, g, w)
		}
	}
	// A non-finite value leaves its seed out next to it.
	nan := SeedBand([][]StepValue{{{10, 1}, {20, math.NaN()}}, {{10, 3}, {20, 5}}})
	if len(nan) != 2 || nan[0].N != 2 || nan[1].N != 1 || nan[1].Mean != 5 || nan[1].SD != 0 {
		t.Errorf("band with a NaN: %+v", nan)
	}
	if b := SeedBand(nil); len(b) != 0 {
		t.Errorf("no curves: %+v", b)
	}
	if m, sd := MeanSD([]float64{2, 4, 4, 4, 5, 5, 7, 9}); !near(m, 5) || !near(sd, math.Sqrt(32.0/7)) {
		t.Errorf("MeanSD: %v ± %v", m, sd)
	}
	if m, sd := MeanSD(nil); !math.IsNaN(m) || !math.IsNaN(sd) {
		t.Errorf("MeanSD of nothing: %v ± %v", m, sd)
	}
	if v, ok := CurveAt(c3, 20); !ok || v != 5 {
		t.Errorf("CurveAt(20) = %v, %v", v, ok)
	}
}
