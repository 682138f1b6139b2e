package figures

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"windtunnel/sessions"
)

// TestSimplexFigure: a snapshot with the belief-simplex measurement draws PC1 vs PC2 by
// argmax state with the numbers in the title; one without it draws none.
func TestSimplexFigure(t *testing.T) {
	snap := &sessions.Snapshot{Simplex: &sessions.Simplex{States: 3, Purity: 0.9, R2: 0.75, MeanCornerDist: 0.2,
		CornerDist: []sessions.Num{0.1, 0.2, 0.3}, N: 40,
		Points: [][2]float64{{0, 1}, {1, 0}, {2, 2}, {-1, -1}}, Argmax: []int{0, 1, 2, 2}}}
	src := t.TempDir()
	writeSnap(t, src, 1, snap)
	writeSnap(t, filepath.Join(src, "none"), 2, &sessions.Snapshot{ProbeN: 4})
	runs, _, err := LoadPaths([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Render(runs, dir, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "bijection-lstm-simplex.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"belief simplex", "k-means purity 0.90, R² 0.75, corner distance 0.20 (4 of 40 points shown)", "state 0", "state 2"} {
		if !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
			t.Errorf("no %q", s)
		}
	}
	// A measurement with the clusters' purity against the observed symbol names it too.
	snap.Simplex.SymbolPurity = 0.5
	src2, dir2 := t.TempDir(), t.TempDir()
	writeSnap(t, src2, 1, snap)
	if runs, _, err = LoadPaths([]string{src2}); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(runs, dir2, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	if b, err = os.ReadFile(filepath.Join(dir2, "bijection-lstm-simplex.svg")); err != nil {
		t.Fatal(err)
	}
	if s := "k-means purity 0.90 (against the observed symbol 0.50), R² 0.75"; !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
		t.Errorf("no %q", s)
	}
}
