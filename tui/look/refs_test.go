package look

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestRefLinesOnTheirRows draws the bit-error chart's reference lines (Bayes 0, pass 0.15,
// no context 1.11) over a range KL stretches to 16 bits, and a series point at each line's
// value: the point must fall on the row that names the line in the margin (not on a row a
// colliding line was pushed to, where a model at 1.08 bits read as passing).
func TestRefLinesOnTheirRows(t *testing.T) {
	refs := []RefLine{{Y: 0, Tick: "0", Label: "Bayes"}, {Y: 0.15, Tick: "0.15", Label: "pass"}, {Y: 1.11, Tick: "1.11", Label: "no context"}}
	for _, c := range []struct {
		name string
		w, h int
		hi   float64
	}{
		{"100x30 KL 16", 60, 26, 16},
		{"80x24 KL 16", 48, 20, 16},
		{"KL 4", 60, 26, 4},
		{"no KL", 60, 26, 1.2},
	} {
		for _, ref := range refs {
			ch := Chart{XR: Span{0, 300}, YR: Span{0, c.hi}, XInt: true, Refs: refs,
				Series: []Series{{Glyph: 'X', Dots: true, X: []float64{150}, Y: []float64{ref.Y}}}}
			rows := strings.Split(ansi.Strip(ch.Draw(c.w, c.h)), "\n")
			found := false
			for _, r := range rows {
				if !strings.Contains(r, "X") {
					continue
				}
				found = true
				margin := r[strings.LastIndex(r, "X")+1:]
				if !strings.Contains(margin, ref.Label) {
					t.Errorf("%s: a value at %v (%s) drawn on the row labelled %q:\n%s", c.name, ref.Y, ref.Label, strings.TrimSpace(strings.Trim(margin, "┄ ")), strings.Join(rows, "\n"))
				}
			}
			if !found {
				t.Errorf("%s: no point drawn at %v", c.name, ref.Y)
			}
		}
	}
}
