package derived

import (
	"fmt"
	"math"

	"windtunnel/sessions"
)

// PassAccuracy is the pass line of MAP accuracy on the recall tunnel (random-access
// binding), whose posterior is a point mass, so its bit error says little: compare's
// verdict, the report and the dashboard apply it there instead of PassBits.
const PassAccuracy = 0.9

// Criterion is how a run of a tunnel passes: the measure it is judged on, its field in a
// run's summary, the pass line and its direction.
type Criterion struct {
	// Measure names the measure on screen: "bit error (a)" or "accuracy".
	Measure string
	// Field is the summary's and the session's field: "bit_error_position" or "accuracy".
	Field string
	// Threshold is the pass line; AtLeast says a value passes at or above it (accuracy),
	// else at or below it (bit error).
	Threshold float64
	AtLeast   bool
}

// CriterionOf is Paper I's criterion for a tunnel, as compare applies it: MAP accuracy ≥
// PassAccuracy on recall, bit error (a) ≤ PassBits on the others (bijection: belief
// accumulation, hmm: belief transport).
func CriterionOf(task string) Criterion {
	if task == "recall" {
		return Criterion{Measure: "accuracy", Field: "accuracy", Threshold: PassAccuracy, AtLeast: true}
	}
	return Criterion{Measure: "bit error (a)", Field: "bit_error_position", Threshold: PassBits}
}

// Rule is the criterion as text: "bit error (a) ≤ 0.15", "accuracy ≥ 0.9".
func (c Criterion) Rule() string {
	op := "≤"
	if c.AtLeast {
		op = "≥"
	}
	return fmt.Sprintf("%s %s %g", c.Measure, op, c.Threshold)
}

// Passes reports whether v meets the criterion; NaN does not.
func (c Criterion) Passes(v float64) bool {
	if math.IsNaN(v) {
		return false
	}
	if c.AtLeast {
		return v >= c.Threshold
	}
	return v <= c.Threshold
}

// Verdict is an evaluation judged by its tunnel's criterion.
type Verdict struct {
	Criterion
	// Value is the evaluation's measure.
	Value float64
	// Pass says whether Value meets the criterion.
	Pass bool
}

// VerdictOf judges an evaluation of a run of task (CriterionOf).
func VerdictOf(task string, e sessions.Eval) Verdict {
	c := CriterionOf(task)
	v := e.BitErrorPosition
	if c.Field == "accuracy" {
		v = e.Accuracy
	}
	return Verdict{Criterion: c, Value: v, Pass: c.Passes(v)}
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
	op := map[[2]bool]string{{true, true}: "≥", {true, false}: "<", {false, true}: "≤", {false, false}: ">"}[[2]bool{v.AtLeast, v.Pass}]
	return fmt.Sprintf("%s %g", op, v.Threshold)
}

// Comparison is the value against the pass line: "bit error (a) 0.0700 ≤ 0.15",
// "bit error (a) 0.1772 > 0.15", "accuracy 0.2530 < 0.9" (dec decimals).
func (v Verdict) Comparison(dec int) string {
	return fmt.Sprintf("%s %.*f %s", v.Measure, dec, v.Value, v.Against())
}

// String is the verdict with its comparison: "pass (bit error (a) 0.0700 ≤ 0.15)".
func (v Verdict) String() string { return v.Word() + " (" + v.Comparison(4) + ")" }
