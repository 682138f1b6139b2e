package derived

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"windtunnel/diagnostics"
)

func TestStatOf(t *testing.T) {
	cases := []struct {
		in       []float64
		mean, sd float64
	}{
		{[]float64{2}, 2, 0},
		{[]float64{1, 3}, 2, math.Sqrt2},
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 3)},
	}
	for _, c := range cases {
		s := StatOf(c.in)
		if math.Abs(s.Mean-c.mean) > 1e-12 || math.Abs(s.SD-c.sd) > 1e-12 {
			t.Errorf("StatOf(%v) = %g ± %g, want %g ± %g", c.in, s.Mean, s.SD, c.mean, c.sd)
		}
	}
	if s := StatOf(nil); !math.IsNaN(s.Mean) {
		t.Errorf("StatOf(nil) mean %g, want NaN", s.Mean)
	}
}

func TestTable(t *testing.T) {
	run := func(task, model string, seed uint64, a, acc float64) RunScore {
		return RunScore{Task: task, Model: model, Seed: seed, Params: 100, WallS: 10,
			Scores: diagnostics.Scores{BitErrorPosition: a, BitErrorSample: a, KLBits: a / 2, Accuracy: acc}}
	}
	runs := []RunScore{
		run("bijection", "transformer", 1, 0.05, 0.99), run("bijection", "transformer", 2, 0.07, 0.99),
		run("bijection", "mlp", 1, 1.1, 0.5),
		run("recall", "transformer", 1, 0.3, 0.95), run("recall", "mlp", 1, 0.01, 0.2),
		run("recall", "lstm", 1, 0.01, 0.95), // measured on one task only: 1/1, not 1/2
	}
	cells := Table(runs, []string{"bijection", "recall"}, []string{"transformer", "mlp", "lstm"})
	if len(cells) != 5 {
		t.Fatalf("%d cells, want 5", len(cells))
	}
	want := []struct {
		task, model string
		seeds       int
		pass        bool
	}{
		{"bijection", "transformer", 2, true}, {"bijection", "mlp", 1, false},
		// Recall passes on accuracy, whatever its bit error.
		{"recall", "transformer", 1, true}, {"recall", "mlp", 1, false},
	}
	for i, w := range want {
		c := cells[i]
		if c.Task != w.task || c.Model != w.model || len(c.Seeds) != w.seeds || c.Pass != w.pass {
			t.Errorf("cell %d = %s %s seeds %v pass %v, want %+v", i, c.Task, c.Model, c.Seeds, c.Pass, w)
		}
	}
	if m := cells[0].BitErrorA.Mean; math.Abs(m-0.06) > 1e-12 {
		t.Errorf("transformer bijection mean %g, want 0.06", m)
	}
	out := FormatTable(cells)
	if c := cells[0]; c.SeedsPassed != 2 || c.Paper != "pass" {
		t.Errorf("transformer bijection: %d seeds passed, paper %q; want 2, pass", c.SeedsPassed, c.Paper)
	}
	if c := cells[3]; c.SeedsPassed != 0 || c.Paper != "fail" {
		t.Errorf("mlp recall: %d seeds passed, paper %q; want 0, fail", c.SeedsPassed, c.Paper)
	}
	for _, s := range []string{"0.0600±0.0141", "belief accumulation (≤ 0.15 bits (a))", "accuracy ≥ 0.90", "transformer 2/2", "mlp 0/2", "lstm 1/1",
		"pass 2/2", "FAIL 0/1", "pass ✓", "fail ✓"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
}

func TestPaperVerdict(t *testing.T) {
	tests := []struct{ task, model, want string }{
		{"bijection", "transformer", "pass"}, {"hmm", "transformer", "pass"}, {"recall", "transformer", "pass"},
		{"bijection", "mamba", "pass"}, {"hmm", "mamba", "pass"}, {"recall", "mamba", "fail"},
		{"bijection", "lstm", "pass"}, {"hmm", "lstm", "fail"}, {"recall", "lstm", "fail"},
		{"bijection", "mlp", "fail"}, {"hmm", "mlp", "fail"}, {"recall", "mlp", "fail"},
		{"bijection", "mlp-prefix", ""},
	}
	for _, tc := range tests {
		if got := PaperVerdict(tc.task, tc.model); got != tc.want {
			t.Errorf("PaperVerdict(%s, %s) = %q, want %q", tc.task, tc.model, got, tc.want)
		}
	}
}

// TestFormatTableWidth: the table of every task and model (3 seeds each, the slowest runs
// taking hours) fits 120 columns (it was 219 wide: fixed columns and each row's primitive
// and criterion), and still names each task's primitive and criterion once.
func TestFormatTableWidth(t *testing.T) {
	var runs []RunScore
	for _, task := range []string{"bijection", "hmm", "recall"} {
		for _, model := range []string{"transformer", "mamba", "lstm", "mlp", "mlp-prefix"} {
			for seed := uint64(1); seed <= 3; seed++ {
				runs = append(runs, RunScore{Task: task, Model: model, Seed: seed, Params: 1234567, WallS: 12345 + float64(seed),
					Scores: diagnostics.Scores{BitErrorPosition: 0.1234 * float64(seed), BitErrorSample: 0.2, KLBits: 1.5, Accuracy: 0.5 + 0.1*float64(seed)}})
			}
		}
	}
	out := FormatTable(Table(runs, []string{"bijection", "hmm", "recall"}, []string{"transformer", "mamba", "lstm", "mlp", "mlp-prefix"}))
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("a line of %d columns (want ≤ 120): %q", n, l)
		}
	}
	for _, s := range []string{"belief accumulation (≤ 0.15 bits (a))", "accuracy ≥ 0.90", "bijection  transformer"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
}
