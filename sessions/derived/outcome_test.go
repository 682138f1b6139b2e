package derived

import (
	"math"
	"strings"
	"testing"

	"windtunnel/diagnostics"
)

// TestOutcome checks the three outcomes and the margin against a null: reproduced only when
// the bench meets the criterion and a recorded null does not.
func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		meets bool
		null  Null
		want  string
	}{
		{true, Null{Known: true, Meets: false}, Reproduced},
		{true, Null{Known: true, Meets: true}, ConsistentNotDiagnostic},
		{true, Null{}, ConsistentNotDiagnostic}, // no null recorded: not diagnostic
		{false, Null{Known: true, Meets: false}, NotReproduced},
		{false, Null{Known: true, Meets: true}, NotReproduced},
	} {
		if got := Outcome(c.meets, c.null); got != c.want {
			t.Errorf("Outcome(%v, %+v) = %q, want %q", c.meets, c.null, got, c.want)
		}
	}
	for _, c := range []struct {
		xs, null     []float64
		below, ok    bool
		diff, margin float64
		text         string
	}{
		// Means 1 and 4, sds 1 and 1 over 3 seeds: margin 2·sqrt(1/3 + 1/3) = 1.633.
		{[]float64{0, 1, 2}, []float64{3, 4, 5}, true, true, 3, 1.633, "3.00 lower, beyond the margin 1.63"},
		{[]float64{3, 4, 5}, []float64{3.5, 4.5, 5.5}, false, true, 0.5, 1.633, "0.50 lower, not beyond the margin 1.63"},
		{[]float64{6, 7, 8}, []float64{3, 4, 5}, false, true, -3, 1.633, "3.00 higher, not beyond"},
		{[]float64{1}, []float64{3, 4, 5}, false, false, 3, math.NaN(), "fewer than two seeds on a side"},
	} {
		below, diff, margin, ok := Beyond(c.xs, c.null)
		text := MarginText(below, diff, margin, ok, 2)
		if below != c.below || ok != c.ok || math.Abs(diff-c.diff) > 1e-9 || (ok && math.Abs(margin-c.margin) > 1e-3) || !strings.Contains(text, c.text) {
			t.Errorf("Beyond(%v, %v) = %v, %g, %g, %v (%q); want %v, %g, %g, %v (%q)", c.xs, c.null, below, diff, margin, ok, text, c.below, c.diff, c.margin, c.ok, c.text)
		}
	}
}

// TestReplicates: sessions of one configuration and seed are one replicate; another seed,
// another configuration or an unreadable configuration is another.
func TestReplicates(t *testing.T) {
	keys := []string{"a", "a", "a", "b", "", ""}
	seeds := []uint64{1, 1, 2, 1, 1, 1}
	got := Replicates(keys, seeds)
	want := [][]int{{0, 1}, {2}, {3}, {4}, {5}}
	if len(got) != len(want) {
		t.Fatalf("Replicates = %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) || got[i][0] != want[i][0] || got[i][len(got[i])-1] != want[i][len(want[i])-1] {
			t.Errorf("Replicates = %v, want %v", got, want)
		}
	}
}

// TestTableCountsReplicateOnce: the architecture table (compare --from) counts a replicate's
// copies once, its seeds and pass count over distinct seeds, and says which copy it left out
// and whether the copies disagree.
func TestTableCountsReplicateOnce(t *testing.T) {
	run := func(seed uint64, session string, bits float64) RunScore {
		return RunScore{Task: "bijection", Model: "transformer", Seed: seed, Key: `{"steps":300}`, Session: session,
			Scores: diagnostics.Scores{BitErrorPosition: bits}}
	}
	cells := Table([]RunScore{run(1, "A/s1", 1.08), run(2, "A/s2", 0.1), run(1, "B/s1", 1.08), run(2, "B/s2", 0.2)},
		[]string{"bijection"}, []string{"transformer"})
	if len(cells) != 1 {
		t.Fatalf("%d cells", len(cells))
	}
	c := cells[0]
	if len(c.Seeds) != 2 || c.SeedsPassed != 1 || len(c.BitErrorA.Values) != 2 || math.Abs(c.BitErrorA.Mean-0.59) > 1e-9 {
		t.Errorf("seeds %v, %d passed, bit error %+v; want 2 seeds, 1 passed, mean 0.59", c.Seeds, c.SeedsPassed, c.BitErrorA)
	}
	if len(c.Copies) != 2 || !strings.Contains(c.Copies[0], "B/s1: a copy of seed 1 (A/s1)") || strings.Contains(c.Copies[0], "disagree") ||
		!strings.Contains(c.Copies[1], "the copies disagree: bit error (a) 0.1 vs 0.2") {
		t.Errorf("copies %q", c.Copies)
	}
	if s := FormatTable(cells); !strings.Contains(s, "FAIL 1/2") || !strings.Contains(s, "copy left out (bijection transformer): B/s1") {
		t.Errorf("table:\n%s", s)
	}
}

// TestDissociationOrder: the ratio enters ±20 % of its final 2.0 (1.6 and up) at step 200,
// below θ = 1.93, and stays ≥ θ only from step 300: t_plateau precedes t_form, and the
// outcome says why rather than printing the two steps in an order the definitions seem not
// to allow.
func TestDissociationOrder(t *testing.T) {
	d := Dissociate([]DissociationPoint{{100, 1, 1}, {200, 1.7, 0.5}, {300, 2.0, 0.1}, {400, 2.0, 0.01}}, 5)
	if d.FormStep != 300 || d.PlateauStep != 200 {
		t.Fatalf("t_form %d, t_plateau %d; want 300 and 200", d.FormStep, d.PlateauStep)
	}
	if !strings.Contains(d.Why, "t_plateau precedes t_form") || !strings.Contains(d.Why, "a band reaching down to 1.60, below θ = 1.93") {
		t.Errorf("why %q", d.Why)
	}
	if o := Dissociate(authorsDense, 192.0/20); strings.Contains(o.Why, "precedes") {
		t.Errorf("the authors' trajectory (t_form 400, t_plateau 10000): %q", o.Why)
	}
}
