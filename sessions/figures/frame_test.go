package figures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// TestFrameBelowChance: a J-lens ratio below chance (0.89 at the first snapshot, scaled
// below 0) lies inside the frame figure's y range, so its line starts at its first step
// rather than late at the bottom edge (the range stopped at −0.03).
func TestFrameBelowChance(t *testing.T) {
	g := fixtureGroup(t)
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

// TestFrameHiddenCurve: where 1 − |ρ(PC1, entropy)| runs exactly along the attention frame
// (both min–max scaled), the frame's dotted line is drawn under it: the legend says so
// instead of listing a line that cannot be seen; the curves that show are listed plainly.
func TestFrameHiddenCurve(t *testing.T) {
	g := fixtureGroup(t)
	s, _, ok := snapshotOf(g)
	if !ok || s.Frame == nil || len(s.Frame.Points) < 3 {
		t.Fatal("the fixture has no frame history")
	}
	legend := func() string {
		fig, ok := frameFigure(g)
		if !ok {
			t.Fatal("no frame figure")
		}
		return svgText(t, fig)
	}
	if v := legend(); strings.Contains(v, "hidden under") {
		t.Errorf("the fixture's curves all show, yet one is called hidden")
	}
	for i, pt := range s.Frame.Points {
		s.Frame.Points[i].PC1Abs = sessions.Num(1 - derived.MeanNum(pt.ToLatest))
	}
	if v := legend(); !strings.Contains(v, "attention frame: distance to the latest pattern (hidden under 1 − |ρ(PC1, entropy)|)") {
		t.Errorf("the attention frame, under 1 − |ρ| all along, is listed as if it showed")
	}
}

// TestJLensSlimmed: a slimmed session's series holds the current frame at its last point
// alone (where it equals the final frame); the J-lens figure then draws the final-frame
// curves only and says so in its title, not a legend entry for a curve of one point.
func TestJLensSlimmed(t *testing.T) {
	g := fixtureGroup(t)
	_, r, ok := snapshotOf(g)
	if !ok || r.FrameRatio == nil || currentPoints(r.FrameRatio) < 2 {
		t.Fatal("the fixture has no J-lens series of two points or more")
	}
	text := func() string {
		fig, ok := jlensFigure(g)
		if !ok {
			t.Fatal("no J-lens figure")
		}
		return svgText(t, fig)
	}
	if v := text(); !strings.Contains(v, "current frame") || strings.Contains(v, "final frame only") {
		t.Errorf("the whole session's figure lacks its current-frame curves or calls itself slimmed")
	}
	pts := r.FrameRatio.Points
	for i := range pts[:len(pts)-1] {
		pts[i].Current, pts[i].Mean = nil, 0
	}
	v := text()
	if strings.Contains(v, "current frame") || !strings.Contains(v, "final frame only (slimmed)") || !strings.Contains(v, "final frame") {
		t.Errorf("the slimmed series' figure: current-frame curves drawn, or the title does not say why they are not")
	}
}

// svgText is fig drawn as SVG at the default size (960×600): its strings (title, legend, labels) as text.
func svgText(t *testing.T, fig figure) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fig.name+".svg")
	if err := save(fig, path, Options{Format: "svg", Width: DefaultWidth, Height: DefaultHeight}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixtureGroup is the fixture session's one group (its configuration's runs).
func fixtureGroup(t *testing.T) Group {
	t.Helper()
	runs, _, err := LoadPaths([]string{fixture})
	if err != nil {
		t.Fatal(err)
	}
	return Groups(runs)[0]
}
