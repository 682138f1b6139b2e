package figures

import "testing"

// TestFrameBelowChance: a J-lens ratio below chance (0.89 at the first snapshot, scaled
// below 0) lies inside the frame figure's y range, so its line starts at its first step
// rather than late at the bottom edge (the range stopped at −0.03).
func TestFrameBelowChance(t *testing.T) {
	runs, err := LoadPaths([]string{fixture})
	if err != nil {
		t.Fatal(err)
	}
	g := Groups(runs)[0]
	_, r, ok := snapshotOf(g)
	if !ok || r.FrameRatio == nil || r.Dissociation == nil || len(r.FrameRatio.Points) == 0 {
		t.Fatal("the fixture has no J-lens frame ratio")
	}
	for _, below := range []float64{0.89, 0.5} {
		r.FrameRatio.Points[0].MeanFinal = below
		fig, ok := frameFigure(g)
		if !ok {
			t.Fatal("no frame figure")
		}
		want := (below - 1) / (r.Dissociation.Ceiling - 1)
		if fig.plot.Y.Min > want {
			t.Errorf("ratio %.2f (scaled %.3f): the y axis starts at %.3f, clipping it", below, want, fig.plot.Y.Min)
		}
	}
}
