package figures

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"windtunnel/sessions/derived"
)

// TestPrimitivesFigure: the primitives table figure names each cell's verdict in words
// (pass, slow, FAIL) with the first pass, and Paper I's (slow for Mamba on recall), at both
// sizes users look at (to $WT_FIG_DIR too, to look at); a planned cell without runs, a whole
// task or model of the plan among them, reads "not trained yet".
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
		f, err := Primitives(cells, nil, nil, "primitives, budget test", filepath.Join(dir, fmt.Sprint(sz[0])), Options{Format: "png", Width: sz[0], Height: sz[1]})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(f.Path); err != nil || st.Size() == 0 || filepath.Base(f.Path) != "primitives.png" {
			t.Fatalf("%s: %v", f.Path, err)
		}
	}
	svg := func(tasks, models []string) []byte {
		t.Helper()
		f, err := Primitives(cells, tasks, models, "primitives, budget test", t.TempDir(), Options{Format: "svg"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	has := func(b []byte, s string) bool {
		return bytes.Contains(b, []byte(s)) || bytes.Contains(b, []byte(xmlEscape(s)))
	}
	b := svg(nil, nil)
	for _, s := range []string{"pass 2/2 seeds, at step 250 of 1000", "slow 2/2 seeds, at step 750 of 1000", "FAIL 2/2 seeds", "paper: slow", "paper: pass", "not trained yet"} {
		if !has(b, s) {
			t.Errorf("no %q", s)
		}
	}
	for _, s := range []string{"hmm", "lstm", "no run"} {
		if has(b, s) {
			t.Errorf("%q without a plan naming it", s)
		}
	}
	planned := svg([]string{"bijection", "hmm", "recall"}, []string{"transformer", "mamba", "lstm"})
	for _, s := range []string{"hmm", "belief transport", "lstm", "not trained yet"} {
		if !has(planned, s) {
			t.Errorf("planned grid: no %q", s)
		}
	}
	if n := bytes.Count(planned, []byte("not trained yet")); n != 6 { // bijection mamba, bijection lstm, recall lstm, hmm × 3
		t.Errorf("planned grid: %d cells not trained yet, want 6", n)
	}
	if _, err := Primitives(nil, nil, nil, "t", t.TempDir(), Options{}); err == nil {
		t.Error("a figure of no cells")
	}
}

// TestPrimitiveCurvesFigure: one figure a task with curves, each model's legend entry giving
// its verdict and seeds passing, the pass line and the slow line named, at both sizes users
// look at (to $WT_FIG_DIR too, to look at); cells without curves are left out.
func TestPrimitiveCurvesFigure(t *testing.T) {
	rec, _ := derived.PrimitiveOf("recall")
	hmm, _ := derived.PrimitiveOf("hmm")
	// A seed that leaves recall's 1/4 plateau at step leave, at accuracy 1 some 2,000 steps on.
	seed := func(leave int) []derived.StepValue {
		var c []derived.StepValue
		for s := 500; s <= 50000; s += 500 {
			v := 0.25
			if leave > 0 && s > leave {
				v = math.Min(1, 0.25+0.75*float64(s-leave)/2000)
			}
			c = append(c, derived.StepValue{Step: s, V: v})
		}
		return c
	}
	cell := func(task, model string, p derived.Primitive, verdict string, passed int, curves ...[]derived.StepValue) derived.PrimitiveCell {
		return derived.PrimitiveCell{Cell: derived.Cell{Task: task, Model: model, Primitive: p, Seeds: []uint64{1, 2, 3}, SeedsPassed: passed},
			Steps: 50000, SlowAfter: 25000, Verdict: verdict, Curves: curves}
	}
	bits := []derived.StepValue{{Step: 100, V: 0.9}, {Step: 200, V: 0.3}, {Step: 300, V: 0.05}, {Step: 400, V: math.NaN()}}
	cells := []derived.PrimitiveCell{
		cell("recall", "transformer", rec, derived.VerdictPass, 3, seed(2000), seed(3500), seed(5800)),
		cell("recall", "mamba", rec, derived.VerdictFail, 1, seed(0), seed(24700), seed(0)),
		cell("recall", "lstm", rec, derived.VerdictFail, 0, seed(0), seed(0), seed(0)),
		cell("hmm", "transformer", hmm, derived.VerdictPass, 3, bits, bits, bits),
		cell("bijection", "mlp", derived.Primitives()[0], derived.VerdictFail, 0),
	}
	dir := t.TempDir()
	if d := os.Getenv("WT_FIG_DIR"); d != "" {
		dir = d
	}
	for _, sz := range [][2]int{{480, 300}, {960, 600}} {
		fs, err := PrimitiveCurves(cells, "test", filepath.Join(dir, fmt.Sprint(sz[0])), Options{Format: "png", Width: sz[0], Height: sz[1]})
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 2 || filepath.Base(fs[0].Path) != "primitives-recall.png" || filepath.Base(fs[1].Path) != "primitives-hmm.png" {
			t.Fatalf("files %+v", fs)
		}
	}
	fs, err := PrimitiveCurves(cells, "test", t.TempDir(), Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fs[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"mamba: FAIL, 1/3 seeds", "transformer: pass, 3/3 seeds", "lstm: FAIL, 0/3 seeds", "pass: accuracy ≥ 0.9", "slow after step 25000", "every seed's accuracy"} {
		if !bytes.Contains(b, []byte(s)) && !bytes.Contains(b, []byte(xmlEscape(s))) {
			t.Errorf("no %q", s)
		}
	}
	if _, err := PrimitiveCurves(cells[4:], "test", t.TempDir(), Options{}); err == nil {
		t.Error("a figure of no curves")
	}
}

// TestScoreLine: a cell's score line keeps a precision budget's bit error and its sd readable
// (four decimals under 0.01, or under 0.1 with a small sd), three decimals otherwise, accuracy
// for recall.
func TestScoreLine(t *testing.T) {
	bij, _ := derived.PrimitiveOf("bijection")
	rec, _ := derived.PrimitiveOf("recall")
	for _, c := range []struct {
		p    derived.Primitive
		vals []float64
		want string
	}{
		{bij, []float64{0.0027, 0.0033}, "(a) 0.0030±0.0004 bits"},
		{bij, []float64{0.0123}, "(a) 0.0123 bits"},
		{bij, []float64{0.0119, 0.0123}, "(a) 0.0121±0.0003 bits"},
		{bij, []float64{0.05, 0.09}, "(a) 0.070±0.028 bits"},
		{bij, []float64{0.4, 0.45}, "(a) 0.425±0.035 bits"},
		{rec, []float64{1, 1}, "accuracy 1.000±0.000"},
	} {
		st := derived.StatOf(c.vals)
		if got := scoreLine(derived.Cell{Primitive: c.p, BitErrorA: st, Accuracy: st}); got != c.want {
			t.Errorf("%v: %q, want %q", c.vals, got, c.want)
		}
	}
}
