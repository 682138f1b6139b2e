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

// TestFrameRatioSeries builds J-lens records whose J-lens subspace turns from orthogonal to
// the final frame into it, and checks the current- and final-frame ratios, the threshold,
// the pass steps and the settle steps.
func TestFrameRatioSeries(t *testing.T) {
	const d = 40
	final := axisBasis(d, 0, 1, 2, 3) // the final frame: 4 axes (null max(4,2)/40 = 0.1)
	early := axisBasis(d, 4, 5, 6, 7) // an earlier frame elsewhere
	away := axisBasis(d, 20, 21)      // a J-lens subspace orthogonal to both
	half := axisBasis(d, 0, 21)       // half in the final frame
	inside := axisBasis(d, 1, 2)      // inside it
	rec := func(frame, basis []float32) *sessions.JLens {
		return &sessions.JLens{Sites: []int{-1}, Width: d, Rank: 2, FrameRank: 4, Seqs: 1, Null: 0.1,
			Overlap: []sessions.Num{0.5}, Frame: frame, Basis: [][]float32{basis}}
	}
	snaps := []JLensSnapshot{
		{Step: 100, JLens: rec(early, away)},
		{Step: 200, JLens: nil}, // no J-lens at this snapshot: skipped
		{Step: 300, JLens: rec(early, half)},
		{Step: 400, JLens: rec(final, inside)},
		{Step: 500, JLens: rec(final, inside)},
	}
	fr := FrameRatioSeries(snaps, SettleBand)
	if fr == nil || len(fr.Points) != 4 {
		t.Fatalf("series %+v, want 4 points", fr)
	}
	wantFinal := []float64{0, 5, 10, 10} // overlap 0, ½, 1, 1 ÷ null 0.1
	for i, p := range fr.Points {
		if math.Abs(p.Final[0]-wantFinal[i]) > 1e-9 {
			t.Errorf("step %d: final-frame ratio %.6g, want %g", p.Step, p.Final[0], wantFinal[i])
		}
		if math.Abs(p.Current[0]-5) > 1e-9 { // recorded overlap 0.5 ÷ 0.1
			t.Errorf("step %d: current-frame ratio %.6g, want 5", p.Step, p.Current[0])
		}
	}
	if fr.Threshold != FramePassRatio || fr.Scaled || math.Abs(fr.Max-10) > 1e-9 {
		t.Errorf("threshold %g (scaled %v), max %g; want 3, unscaled, 10", fr.Threshold, fr.Scaled, fr.Max)
	}
	if fr.PassFinal[0] != 300 || fr.PassCurrent[0] != 100 {
		t.Errorf("pass steps: final %d, current %d; want 300, 100", fr.PassFinal[0], fr.PassCurrent[0])
	}
	if fr.SettleFinal != 400 {
		t.Errorf("final-frame ratio settled at %d, want 400", fr.SettleFinal)
	}
	if FrameRatioSeries(snaps[1:2], SettleBand) != nil {
		t.Error("a series without any J-lens")
	}
}

func TestFrameThreshold(t *testing.T) {
	for _, c := range []struct {
		max, want float64
		scaled    bool
	}{
		{192.0 / 20, 3, false}, // the authors' size
		{96.0 / 20, 3, false},  // mid: 3 is within reach
		{3, 3, false},
		{64.0 / 20, 3, false},
		{2.5, 1 + 2*1.5/(192.0/20-1), true}, // out of reach: the same fraction of the way
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
