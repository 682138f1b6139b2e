package derived

import (
	"math"
	"testing"

	"windtunnel/sessions"
)

// TestVerdictOf checks each tunnel's criterion (recall by MAP accuracy, the others by bit
// error (a)), the pass lines themselves (a value on the line passes), NaN failing, and the
// text the exit line and the dashboard print.
func TestVerdictOf(t *testing.T) {
	for _, c := range []struct {
		task     string
		e        sessions.Eval
		pass     bool
		field    string
		text     string
		rule     string
		compared string
	}{
		{"bijection", sessions.Eval{BitErrorPosition: 0.07, BitErrorSample: 0.9, Accuracy: 0.1}, true, "bit_error_position",
			"pass (bit error (a) 0.0700 ≤ 0.15)", "bit error (a) ≤ 0.15", "bit error (a) 0.070 ≤ 0.15"},
		{"hmm", sessions.Eval{BitErrorPosition: 0.1772, BitErrorSample: 0.01, Accuracy: 1}, false, "bit_error_position",
			"FAIL (bit error (a) 0.1772 > 0.15)", "bit error (a) ≤ 0.15", "bit error (a) 0.177 > 0.15"},
		{"bijection", sessions.Eval{BitErrorPosition: PassBits}, true, "bit_error_position",
			"pass (bit error (a) 0.1500 ≤ 0.15)", "bit error (a) ≤ 0.15", "bit error (a) 0.150 ≤ 0.15"},
		{"bijection", sessions.Eval{BitErrorPosition: math.NaN()}, false, "bit_error_position",
			"FAIL (bit error (a) NaN > 0.15)", "bit error (a) ≤ 0.15", "bit error (a) NaN > 0.15"},
		{"recall", sessions.Eval{BitErrorPosition: 2.01, Accuracy: 0.253}, false, "accuracy",
			"FAIL (accuracy 0.2530 < 0.9)", "accuracy ≥ 0.9", "accuracy 0.253 < 0.9"},
		{"recall", sessions.Eval{BitErrorPosition: 0.5, Accuracy: PassAccuracy}, true, "accuracy",
			"pass (accuracy 0.9000 ≥ 0.9)", "accuracy ≥ 0.9", "accuracy 0.900 ≥ 0.9"},
	} {
		v := VerdictOf(c.task, c.e)
		if v.Pass != c.pass || v.Metric != c.field || v.String() != c.text || v.Rule() != c.rule || v.Comparison(3) != c.compared {
			t.Errorf("%s %+v: got pass %v, field %q, %q, rule %q, %q; want %v, %q, %q, %q, %q",
				c.task, c.e, v.Pass, v.Metric, v.String(), v.Rule(), v.Comparison(3), c.pass, c.field, c.text, c.rule, c.compared)
		}
	}
}

// TestContextFreeOf checks where a recorded run's context-free level takes V: the stored
// configuration's tunnel.V, else the Bayes curve's length (V−1 scored positions); none for
// a tunnel other than the bijection.
func TestContextFreeOf(t *testing.T) {
	for _, c := range []struct {
		m        sessions.Meta
		bayesLen int
		want     float64
	}{
		{sessions.Meta{Task: "bijection", Config: []byte(`{"tunnel":{"V":10}}`)}, 19, ContextFreeBits(10)},
		{sessions.Meta{Task: "bijection"}, 19, ContextFreeBits(20)},
		{sessions.Meta{Task: "bijection", Config: []byte(`not json`)}, 7, ContextFreeBits(8)},
		{sessions.Meta{Task: "hmm", Config: []byte(`{"tunnel":{"V":10}}`)}, 19, math.NaN()},
	} {
		got := ContextFreeOf(c.m, c.bayesLen)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s %s, %d positions: %v, want %v", c.m.Task, c.m.Config, c.bayesLen, got, c.want)
		}
	}
}
