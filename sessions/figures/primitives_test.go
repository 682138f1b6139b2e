package figures

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"windtunnel/sessions/derived"
)

// TestPrimitivesFigure: the primitives table figure names each cell's verdict in words
// (pass, slow, FAIL) with the first pass, and Paper I's (slow for Mamba on recall), at both
// sizes users look at (to $WT_FIG_DIR too, to look at).
func TestPrimitivesFigure(t *testing.T) {
	bij, _ := derived.PrimitiveOf("bijection")
	rec, _ := derived.PrimitiveOf("recall")
	cell := func(task, model string, p derived.Primitive, verdict string, pass int, v float64) derived.PrimitiveCell {
		st := derived.StatOf([]float64{v, v})
		return derived.PrimitiveCell{Cell: derived.Cell{Task: task, Model: model, Primitive: p, Seeds: []uint64{1, 2},
			SeedsPassed: 2, BitErrorA: st, Accuracy: st}, Steps: 1000, PassStep: pass, Verdict: verdict}
	}
	cells := []derived.PrimitiveCell{
		cell("bijection", "transformer", bij, derived.VerdictPass, 250, 0.07),
		cell("recall", "transformer", rec, derived.VerdictSlow, 750, 1),
		cell("recall", "mamba", rec, derived.VerdictFail, -1, 0.25),
	}
	dir := t.TempDir()
	if d := os.Getenv("WT_FIG_DIR"); d != "" {
		dir = d
	}
	for _, sz := range [][2]int{{480, 300}, {960, 600}} {
		f, err := Primitives(cells, "primitives, budget test", filepath.Join(dir, fmt.Sprint(sz[0])), Options{Format: "png", Width: sz[0], Height: sz[1]})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(f.Path); err != nil || st.Size() == 0 || filepath.Base(f.Path) != "primitives.png" {
			t.Fatalf("%s: %v", f.Path, err)
		}
	}
	f, err := Primitives(cells, "primitives, budget test", t.TempDir(), Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"pass 2/2 seeds, at step 250 of 1000", "slow 2/2 seeds, at step 750 of 1000", "FAIL 2/2 seeds", "paper: slow", "paper: pass", "no run"} {
		if !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
			t.Errorf("no %q", s)
		}
	}
	if _, err := Primitives(nil, "t", t.TempDir(), Options{}); err == nil {
		t.Error("a figure of no cells")
	}
}
