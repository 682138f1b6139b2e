package overlay

import (
	"fmt"
	"math"
	"testing"

	"windtunnel/sessions/derived"
	"windtunnel/tui"
	"windtunnel/tui/look"
)

func bandNear(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestOverlayBandEdges checks the drawn band: its edges are derived.SeedBand's (mean ∓ sd
// clipped to the seeds' range), interpolated between band points, absent outside them.
func TestOverlayBandEdges(t *testing.T) {
	got := derived.SeedBand([][]stepValue{{{Step: 10, V: 1}, {Step: 20, V: 3}}, {{Step: 10, V: 3}, {Step: 20, V: 5}}, {{Step: 15, V: 4}, {Step: 25, V: 6}}})
	// step 10: 1 and 3, mean 2 ± √2 clipped to [1, 3]; step 15: 2, 4, 4, mean 10/3 ± √(4/3)
	// clipped to [2.18, 4].
	lo15, hi15 := 10.0/3-math.Sqrt(4.0/3), 4.0
	if lo, hi, ok := bandAt(got, 12.5); !ok || !bandNear(lo, (1+lo15)/2) || !bandNear(hi, (3+hi15)/2) {
		t.Errorf("bandAt(12.5) = %v, %v, %v; want %v, %v", lo, hi, ok, (1+lo15)/2, (3+hi15)/2)
	}
	if _, _, ok := bandAt(got, 9); ok {
		t.Error("bandAt before the first step")
	}
}

// TestOverlayBandFeeds checks the legend's mean ± sd against the seeds' values, computed
// here from the synthetic curves: at the last step, where every seed evaluated, and at the
// first, before the transformer's seed 3 (every 30 steps) has any.
func TestOverlayBandFeeds(t *testing.T) {
	msd := func(vs ...float64) string {
		m, ss := 0.0, 0.0
		for _, v := range vs {
			m += v / float64(len(vs))
		}
		for _, v := range vs {
			ss += (v - m) * (v - m)
		}
		return fmt.Sprintf("%s ± %s", look.Num(m, 3), look.Num(math.Sqrt(ss/float64(len(vs)-1)), 3))
	}
	o := sizedOverlay(New(seedFeeds(), nil, tui.Options{}), 120, 40)
	v := overlayView(t, o, 120, 40)
	mustContain(t, v,
		"transformer (3 seeds)  passing 3/3  (a) "+msd(seedCurve("transformer", 1, 600), seedCurve("transformer", 2, 600), seedCurve("transformer", 3, 600))+"  @600",
		"mlp (3 seeds)          not yet 0/3  (a) "+msd(seedCurve("mlp", 1, 600), seedCurve("mlp", 2, 600), seedCurve("mlp", 3, 600))+"  @600")
	v = overlayView(t, pressOverlay(t, o, "home"), 120, 40)
	mustContain(t, v,
		"(a) "+msd(seedCurve("transformer", 1, 25), seedCurve("transformer", 2, 25))+"  @25 (2 of 3 seeds)",
		"(a) "+msd(seedCurve("mlp", 1, 25), seedCurve("mlp", 2, 25), seedCurve("mlp", 3, 25))+"  @25")
	// Between the cadences the third seed is interpolated: step 575 lies between its 570
	// and 600.
	s3 := seedCurve("transformer", 3, 570) + (5.0/30)*(seedCurve("transformer", 3, 600)-seedCurve("transformer", 3, 570))
	v = overlayView(t, pressOverlay(t, o, "left"), 120, 40)
	mustContain(t, v, "(a) "+msd(seedCurve("transformer", 1, 575), seedCurve("transformer", 2, 575), s3)+"  @575")
	// Metric b: the same seeds, another quantity.
	v = overlayView(t, pressOverlay(t, o, "m"), 120, 40)
	mustContain(t, v, "(b) "+msd(1.3*seedCurve("mlp", 1, 600), 1.3*seedCurve("mlp", 2, 600), 1.3*seedCurve("mlp", 3, 600))+"  @600")
}
