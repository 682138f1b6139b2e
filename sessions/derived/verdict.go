package derived

import (
	"fmt"
	"math"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
)

// PassAccuracy is the pass line of MAP accuracy on the recall tunnel (random-access
// binding), whose posterior is a point mass, so its bit error says little: recall's
// primitive is judged by it instead of PassBits.
const PassAccuracy = 0.9

// Primitive is one of Paper I's inference primitives, the tunnel that tests it, and the
// criterion a model must meet to pass it.
type Primitive struct {
	// Task is the tunnel.
	Task string `json:"task"`
	// Name is the primitive the tunnel tests.
	Name string `json:"primitive"`
	// Metric is "bit_error_position" (pass when ≤ Threshold) or "accuracy" (pass when ≥).
	Metric string `json:"metric"`
	// Threshold is the pass bound.
	Threshold float64 `json:"threshold"`
}

// Primitives are the architecture table's columns. The bit-error bound is PassBits,
// where the quick preset's transformer lands comfortably (bijection 0.07 bits, HMM 0.08) and
// far below the uniform or context-free guess (≥ 0.8 bits); recall is scored by MAP
// accuracy (PassAccuracy) since its posterior is a point mass (entropy 0).
func Primitives() []Primitive {
	return []Primitive{
		{Task: "bijection", Name: "belief accumulation", Metric: "bit_error_position", Threshold: PassBits},
		{Task: "hmm", Name: "belief transport", Metric: "bit_error_position", Threshold: PassBits},
		{Task: "recall", Name: "random-access binding", Metric: "accuracy", Threshold: PassAccuracy},
	}
}

// Passes reports whether scores meet the primitive's threshold.
func (p Primitive) Passes(s diagnostics.Scores) bool {
	if p.AtLeast() {
		return p.Meets(s.Accuracy)
	}
	return p.Meets(s.BitErrorPosition)
}

// Meets reports whether v, a value of the primitive's metric, meets its threshold; NaN
// does not.
func (p Primitive) Meets(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	if p.AtLeast() {
		return v >= p.Threshold
	}
	return v <= p.Threshold
}

// AtLeast reports whether the metric passes at or above the threshold (accuracy), not at
// or below it (bit error).
func (p Primitive) AtLeast() bool { return p.Metric == "accuracy" }

// Measure names the metric on screen: "bit error (a)" or "accuracy".
func (p Primitive) Measure() string {
	if p.AtLeast() {
		return "accuracy"
	}
	return "bit error (a)"
}

// Rule is the criterion as text: "bit error (a) ≤ 0.15", "accuracy ≥ 0.9".
func (p Primitive) Rule() string {
	op := "≤"
	if p.AtLeast() {
		op = "≥"
	}
	return fmt.Sprintf("%s %s %g", p.Measure(), op, p.Threshold)
}

// PaperVerdict is Paper I's architecture-table verdict for a model on a task: "pass" or
// "fail" (Transformer 3/3 primitives; Mamba bijection and HMM, not binding; LSTM
// bijection only; MLP none), "" for a model the paper has no row for.
func PaperVerdict(task, model string) string {
	passes := map[string][]string{
		"transformer": {"bijection", "hmm", "recall"},
		"mamba":       {"bijection", "hmm"},
		"lstm":        {"bijection"},
		"mlp":         {},
	}
	ts, ok := passes[model]
	if !ok {
		return ""
	}
	for _, t := range ts {
		if t == task {
			return "pass"
		}
	}
	return "fail"
}

// PrimitiveOf returns the primitive a task tests.
func PrimitiveOf(task string) (Primitive, bool) {
	for _, p := range Primitives() {
		if p.Task == task {
			return p, true
		}
	}
	return Primitive{}, false
}

// CriterionOf is how a run of a tunnel is judged: its primitive (PrimitiveOf, as compare
// judges it), or bit error (a) ≤ PassBits for a tunnel without one.
func CriterionOf(task string) Primitive {
	if p, ok := PrimitiveOf(task); ok {
		return p
	}
	return Primitive{Task: task, Metric: "bit_error_position", Threshold: PassBits}
}

// Verdict is an evaluation judged by its tunnel's criterion.
type Verdict struct {
	Primitive
	// Value is the evaluation's value of the primitive's metric.
	Value float64
	// Pass says whether Value meets the criterion.
	Pass bool
}

// VerdictOf judges an evaluation of a run of task (CriterionOf): the run's exit line and
// summary, the dashboard and the overlay judge by it, as compare judges a cell.
func VerdictOf(task string, e sessions.Eval) Verdict {
	return VerdictOfScores(task, diagnostics.Scores{BitErrorPosition: e.BitErrorPosition, Accuracy: e.Accuracy})
}

// VerdictOfScores is VerdictOf for a run's scores (RunScore.Scores): whether the run learnt
// its task, which the report asks before it judges how the run does it (its geometry).
func VerdictOfScores(task string, s diagnostics.Scores) Verdict {
	p := CriterionOf(task)
	v := s.BitErrorPosition
	if p.AtLeast() {
		v = s.Accuracy
	}
	return Verdict{Primitive: p, Value: v, Pass: p.Meets(v)}
}

// Word is "pass" or "FAIL" (capitals, so a failure stands out without colour).
func (v Verdict) Word() string {
	if v.Pass {
		return "pass"
	}
	return "FAIL"
}

// Status is the verdict's word at a step of a run: Word once the run has ended there,
// else "passing" or "not yet" (the verdict so far).
func (v Verdict) Status(ended bool) string {
	switch {
	case ended:
		return v.Word()
	case v.Pass:
		return "passing"
	}
	return "not yet"
}

// Ended reports whether a run had ended at a record of state s (done, stopped or failed):
// its verdict there is final.
func Ended(s sessions.State) bool {
	return s == sessions.Done || s == sessions.Stopped || s == sessions.Failed
}

// Against is the pass line as the value stands to it: "≤ 0.15", "> 0.15", "< 0.9".
func (v Verdict) Against() string {
	op := map[[2]bool]string{{true, true}: "≥", {true, false}: "<", {false, true}: "≤", {false, false}: ">"}[[2]bool{v.AtLeast(), v.Pass}]
	return fmt.Sprintf("%s %g", op, v.Threshold)
}

// Comparison is the value against the pass line: "bit error (a) 0.0700 ≤ 0.15",
// "bit error (a) 0.1772 > 0.15", "accuracy 0.2530 < 0.9" (dec decimals).
func (v Verdict) Comparison(dec int) string {
	return fmt.Sprintf("%s %.*f %s", v.Measure(), dec, v.Value, v.Against())
}

// String is the verdict with its comparison: "pass (bit error (a) 0.0700 ≤ 0.15)".
func (v Verdict) String() string { return v.Word() + " (" + v.Comparison(4) + ")" }
