package derived

import (
	"math"
	"testing"

	"windtunnel/sessions"
)

// axisBasis is the basis of the coordinate axes idx in R^d, d×len(idx) row-major.
func axisBasis(d int, idx ...int) []float32 {
	u := make([]float32, d*len(idx))
	for j, i := range idx {
		u[i*len(idx)+j] = 1
	}
	return u
}

// TestFrameRatioSeries builds J-lens records (one site, two positions) whose J-lens
// subspaces turn from orthogonal to the final frame into it, and checks the current- and
// final-frame ratios per site and their means, and that records of the old statistic are
// left out.
func TestFrameRatioSeries(t *testing.T) {
	const d = 40
	final := axisBasis(d, 0, 1, 2, 3) // the final frame: 4 axes (null max(4,2)/40 = 0.1)
	early := axisBasis(d, 4, 5, 6, 7) // an earlier frame elsewhere
	away := axisBasis(d, 20, 21)      // a J-lens subspace orthogonal to both
	half := axisBasis(d, 0, 21)       // half in the final frame
	inside := axisBasis(d, 1, 2)      // inside it
	rec := func(frame []float32, bases ...[]float32) *sessions.JLens {
		return &sessions.JLens{Statistic: sessions.JLensStatistic, Sites: []int{-1}, Positions: []int{0, 2}, Width: d, Rank: 2, FrameRank: 4,
			Seqs: 1, Null: 0.1, Overlap: []sessions.Num{0.5}, Frame: frame, Basis: bases}
	}
	old := rec(final, inside, inside)
	old.Statistic = ""
	snaps := []JLensSnapshot{
		{Step: 100, JLens: rec(early, away, away)},
		{Step: 200, JLens: nil}, // no J-lens at this snapshot: skipped
		{Step: 250, JLens: old}, // the old statistic: skipped
		{Step: 300, JLens: rec(early, half, away)},
		{Step: 400, JLens: rec(final, inside, half)},
		{Step: 500, JLens: rec(final, inside, inside)},
	}
	fr := FrameRatioSeries(snaps)
	if fr == nil || len(fr.Points) != 4 {
		t.Fatalf("series %+v, want 4 points", fr)
	}
	wantFinal := []float64{0, 2.5, 7.5, 10} // mean over the two positions of overlap ÷ null 0.1
	for i, p := range fr.Points {
		if math.Abs(p.Final[0]-wantFinal[i]) > 1e-9 || math.Abs(p.MeanFinal-wantFinal[i]) > 1e-9 {
			t.Errorf("step %d: final-frame ratio %.6g (mean %.6g), want %g", p.Step, p.Final[0], p.MeanFinal, wantFinal[i])
		}
		if math.Abs(p.Current[0]-5) > 1e-9 || math.Abs(p.Mean-5) > 1e-9 { // recorded overlap 0.5 ÷ 0.1
			t.Errorf("step %d: current-frame ratio %.6g, want 5", p.Step, p.Current[0])
		}
	}
	if last := fr.Points[3]; len(last.Positions) != 1 || len(last.Positions[0]) != 2 || last.Positions[0][1] != 10 {
		t.Errorf("last point's per-position ratios %v, want [[10 10]]", last.Positions)
	}
	if th, _ := FrameThreshold(10); fr.Threshold != th || !fr.Scaled || math.Abs(fr.Max-10) > 1e-9 {
		t.Errorf("threshold %g (scaled %v), max %g", fr.Threshold, fr.Scaled, fr.Max)
	}
	if FrameRatioSeries(snaps[1:3]) != nil {
		t.Error("a series without any J-lens of the current statistic")
	}
}

func TestFrameThreshold(t *testing.T) {
	for _, c := range []struct {
		max, want float64
		scaled    bool
	}{
		{192.0 / 20, 3, false},                    // the authors' size
		{96.0 / 20, 1 + 2*3.8/(192.0/20-1), true}, // mid: the same fraction of the way
		{64.0 / 20, 1 + 2*2.2/(192.0/20-1), true}, // quick
		{1, 1, true}, // no room at all: chance
	} {
		got, scaled := FrameThreshold(c.max)
		if math.Abs(got-c.want) > 1e-12 || scaled != c.scaled {
			t.Errorf("FrameThreshold(%g) = %g, %v; want %g, %v", c.max, got, scaled, c.want, c.scaled)
		}
	}
}

func TestPrecisionScale(t *testing.T) {
	for _, c := range []struct{ bits, want float64 }{{1, 0}, {0.25, -2}, {0, math.Log2(BitErrorFloor)}, {1e-9, math.Log2(BitErrorFloor)}} {
		if got := PrecisionScale(c.bits); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("PrecisionScale(%g) = %g, want %g", c.bits, got, c.want)
		}
	}
}

// TestWithHistory: a series of one snapshot takes its earlier points from that snapshot's
// history (final-frame ratios per site, their mean), keeps its own last point, and is left as
// it is when the history adds nothing (fewer points, none with a J-lens ratio, or nil).
func TestWithHistory(t *testing.T) {
	last := FramePoint{Step: 300, Current: []float64{4}, Final: []float64{5, 7}, Mean: 4, MeanFinal: 6}
	one := &FrameRatios{Max: 10, Points: []FramePoint{last}}
	hist := &sessions.Frame{Points: []sessions.FramePoint{
		{Step: 100, JLens: []sessions.Num{1, 3}},
		{Step: 150}, // no J-lens ratio recorded: left out
		{Step: 200, JLens: []sessions.Num{4, 6}},
		{Step: 300, JLens: []sessions.Num{5, 7}}, // the snapshot itself: fr's own point stays
	}}
	got := one.WithHistory(hist)
	if got == one || len(got.Points) != 3 || got.Max != 10 || len(one.Points) != 1 {
		t.Fatalf("series %+v (the original now %d points), want 3 points, the original untouched", got, len(one.Points))
	}
	for i, w := range []struct {
		step int
		mean float64
	}{{100, 2}, {200, 5}, {300, 6}} {
		if p := got.Points[i]; p.Step != w.step || math.Abs(p.MeanFinal-w.mean) > 1e-12 {
			t.Errorf("point %d: step %d mean %g, want %d and %g", i, p.Step, p.MeanFinal, w.step, w.mean)
		}
	}
	if p := got.Points[0]; p.Current != nil || !math.IsNaN(p.Mean) || len(p.Final) != 2 {
		t.Errorf("a history point %+v: want the final-frame ratios alone", p)
	}
	if p := got.Points[2]; len(p.Current) != 1 || p.Mean != 4 {
		t.Errorf("the last point %+v is not the series' own", p)
	}
	three := &FrameRatios{Points: []FramePoint{{Step: 100}, {Step: 200}, last}}
	for name, c := range map[string]struct {
		fr *FrameRatios
		h  *sessions.Frame
	}{"no history": {one, nil}, "as many points": {three, hist}, "no series": {nil, hist},
		"no ratio in the history": {one, &sessions.Frame{Points: []sessions.FramePoint{{Step: 100}, {Step: 200}}}}} {
		if got := c.fr.WithHistory(c.h); got != c.fr {
			t.Errorf("%s: %+v, want the series itself", name, got)
		}
	}
	if (*FrameRatios)(nil).LastStep() != -1 || one.LastStep() != 300 {
		t.Error("LastStep")
	}
}
