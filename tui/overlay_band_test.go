package tui

import (
	"fmt"
	"math"
	"testing"
)

func bandNear(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestOverlayBand checks the band's mean and standard deviation on constructed curves:
// the union of the seeds' steps, interpolation inside a seed's evaluations, nothing
// outside them, non-finite values left out.
func TestOverlayBand(t *testing.T) {
	c1 := []stepValue{{10, 1}, {20, 3}}
	c2 := []stepValue{{10, 3}, {20, 5}}
	c3 := []stepValue{{15, 4}, {25, 6}}
	got := alignBand([][]stepValue{c1, c2, c3})
	// step 10: c1 1, c2 3 (c3 not yet): mean 2, sd √2. step 15: c1 2 and c2 4
	// (interpolated), c3 4: mean 10/3, sd √(4/3). step 20: c1 3, c2 5, c3 5 (interpolated):
	// mean 13/3, sd √(4/3). step 25: c3 alone: mean 6, sd 0.
	want := []bandPoint{{10, 2, math.Sqrt2, 2}, {15, 10.0 / 3, math.Sqrt(4.0 / 3), 3}, {20, 13.0 / 3, math.Sqrt(4.0 / 3), 3}, {25, 6, 0, 1}}
	if len(got) != len(want) {
		t.Fatalf("band %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.step != w.step || g.n != w.n || !bandNear(g.mean, w.mean) || !bandNear(g.sd, w.sd) {
			t.Errorf("point %d: %+v, want %+v", i, g, w)
		}
	}
	// A non-finite evaluation leaves its seed out next to it.
	nan := alignBand([][]stepValue{{{10, 1}, {20, math.NaN()}}, {{10, 3}, {20, 5}}})
	if len(nan) != 2 || nan[0].n != 2 || nan[1].n != 1 || nan[1].mean != 5 || nan[1].sd != 0 {
		t.Errorf("band with a NaN: %+v", nan)
	}
	if b := alignBand(nil); len(b) != 0 {
		t.Errorf("no curves: %+v", b)
	}
	if m, sd := meanSD([]float64{2, 4, 4, 4, 5, 5, 7, 9}); !bandNear(m, 5) || !bandNear(sd, math.Sqrt(32.0/7)) {
		t.Errorf("meanSD: %v ± %v", m, sd)
	}
	if m, sd := meanSD(nil); !math.IsNaN(m) || !math.IsNaN(sd) {
		t.Errorf("meanSD of nothing: %v ± %v", m, sd)
	}
	// The drawn edges interpolate between band points.
	if lo, hi, ok := bandAt(got, 12.5); !ok || !bandNear(lo+hi, 2*(2+(10.0/3-2)/2)) {
		t.Errorf("bandAt(12.5) = %v, %v, %v", lo, hi, ok)
	}
	if _, _, ok := bandAt(got, 9); ok {
		t.Error("bandAt before the first step")
	}
	if v, ok := curveAt(c3, 20); !ok || v != 5 {
		t.Errorf("curveAt(20) = %v, %v", v, ok)
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
		return fmt.Sprintf("%s ± %s", fnum(m, 3), fnum(math.Sqrt(ss/float64(len(vs)-1)), 3))
	}
	o := sizedOverlay(NewOverlay(seedFeeds(), nil, Options{}), 120, 40)
	v := overlayView(t, o, 120, 40)
	mustContain(t, v,
		"transformer (3 seeds)  (a) "+msd(seedCurve("transformer", 1, 600), seedCurve("transformer", 2, 600), seedCurve("transformer", 3, 600))+" @600",
		"mlp (3 seeds)          (a) "+msd(seedCurve("mlp", 1, 600), seedCurve("mlp", 2, 600), seedCurve("mlp", 3, 600))+" @600")
	v = overlayView(t, pressOverlay(t, o, "home"), 120, 40)
	mustContain(t, v,
		"(a) "+msd(seedCurve("transformer", 1, 25), seedCurve("transformer", 2, 25))+" @25 (2 of 3 seeds)",
		"(a) "+msd(seedCurve("mlp", 1, 25), seedCurve("mlp", 2, 25), seedCurve("mlp", 3, 25))+" @25   ")
	// Between the cadences the third seed is interpolated: step 575 lies between its 570
	// and 600.
	s3 := seedCurve("transformer", 3, 570) + (5.0/30)*(seedCurve("transformer", 3, 600)-seedCurve("transformer", 3, 570))
	v = overlayView(t, pressOverlay(t, o, "left"), 120, 40)
	mustContain(t, v, "(a) "+msd(seedCurve("transformer", 1, 575), seedCurve("transformer", 2, 575), s3)+" @575")
	// Metric b: the same seeds, another quantity.
	v = overlayView(t, pressOverlay(t, o, "m"), 120, 40)
	mustContain(t, v, "(b) "+msd(1.3*seedCurve("mlp", 1, 600), 1.3*seedCurve("mlp", 2, 600), 1.3*seedCurve("mlp", 3, 600))+" @600")
}
