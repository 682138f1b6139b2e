package derived

import (
	"fmt"
	"math"
)

// The outcomes of a claim of Paper I or Paper II measured on the bench (docs/paper1.md: "The report's
// verdicts"): the bench's measurement against the paper's criterion and against a null, a
// measurement that should not show the effect.
const (
	// Reproduced: the bench meets the paper's criterion and its null does not (beyond the
	// margin the row states).
	Reproduced = "reproduced"
	// ConsistentNotDiagnostic: the bench meets the criterion, but so does its null (or no
	// null was recorded), so meeting it does not tell the claim from its absence.
	ConsistentNotDiagnostic = "consistent, not diagnostic"
	// NotReproduced: the bench does not meet the criterion.
	NotReproduced = "not reproduced"
	// NotMeasured: the sessions do not hold what the claim needs; the reason says what.
	NotMeasured = "not measured"
)

// Null is a claim's criterion applied to its null: for Paper I the same model untrained or,
// where no untrained state is recorded, at its earliest record; for Paper II's timescales the
// spread of the baseline's own seeds.
type Null struct {
	// Known: the null was measured. Meets: it meets the criterion too (within the margin).
	Known, Meets bool
	// NotBeaten: the measurement does not beat the null by the row's margin, though the null
	// fails the criterion (Paper III's rows, whose margins are separate from the criterion).
	NotBeaten bool
	// Replicate marks a control the claim must survive rather than fail (Paper III's lexical
	// remap): the outcome needs it to meet the criterion.
	Replicate bool
	// What names the null and its value, for the reason ("the first evaluation (step 100):
	// bit error (a) 3.2100 > 0.15").
	What string
}

// Outcome is the verdict of a claim: NotReproduced when the bench does not meet the
// criterion; Reproduced when it does and the null does not; ConsistentNotDiagnostic when it
// does and so does the null, or no null was recorded.
func Outcome(meets bool, null Null) string {
	o, _ := OutcomeOf(meets, []Null{null})
	return o
}

// OutcomeOf is Outcome over several nulls, with the clause that decided it ("" when the
// criterion is not met): Reproduced only when every known null fails the criterion and is
// beaten by the margin, every replicate meets it, and at least one null is known.
func OutcomeOf(meets bool, nulls []Null) (string, string) {
	if !meets {
		return NotReproduced, ""
	}
	known := 0
	for _, n := range nulls {
		switch {
		case !n.Known:
		case n.Replicate && !n.Meets:
			return ConsistentNotDiagnostic, "the " + n.What + " does not reproduce it"
		case n.Replicate:
		case n.Meets:
			return ConsistentNotDiagnostic, "the " + n.What + " meets it too"
		case n.NotBeaten:
			return ConsistentNotDiagnostic, "the " + n.What + " is not beaten by the margin"
		default:
			known++
		}
	}
	if known == 0 {
		return ConsistentNotDiagnostic, "no null recorded: undiagnosed"
	}
	return Reproduced, "every null fails it"
}

// NullClause is the reason's sentence about the null: "null: WHAT — does not meet it", "null:
// WHAT — meets it too", or "no null recorded: WHAT".
func NullClause(n Null) string {
	switch {
	case !n.Known:
		return "no null recorded: " + n.What
	case n.Meets:
		return "null: " + n.What + " — meets it too"
	}
	return "null: " + n.What + " — does not meet it"
}

// MarginFactor is how many standard errors of the difference of two means a measurement must
// beat its null by when the criterion compares the two (steps to a target, key orthogonality
// against initialisation): twice, about a 95 % two-sided interval.
const MarginFactor = 2

// Beyond reports whether the mean of xs lies below the mean of null by more than MarginFactor
// standard errors of their difference (Welch: sqrt(s²ₓ/nₓ + s²ₙ/nₙ), sample sds over seeds),
// with the difference and the margin; ok is false when either side has fewer than two finite
// values (no spread, so no margin).
func Beyond(xs, null []float64) (below bool, diff, margin float64, ok bool) {
	fx, fn := finite(xs), finite(null)
	if len(fx) < 2 || len(fn) < 2 {
		mx, _ := MeanSD(fx)
		mn, _ := MeanSD(fn)
		return false, mn - mx, math.NaN(), false
	}
	mx, sx := MeanSD(fx)
	mn, sn := MeanSD(fn)
	margin = MarginFactor * math.Sqrt(sx*sx/float64(len(fx))+sn*sn/float64(len(fn)))
	diff = mn - mx
	return diff > margin, diff, margin, true
}

// MarginText is Beyond's outcome in words: "0.12 lower, beyond the margin 0.04 (2 standard
// errors over seeds)" ("higher" when the mean is above the null's), or why there is no margin.
func MarginText(below bool, diff, margin float64, ok bool, dec int) string {
	dir := "lower"
	if diff < 0 {
		dir, diff = "higher", -diff
	}
	if !ok {
		return fmt.Sprintf("%.*f %s; fewer than two seeds on a side, so no spread to set a margin", dec, diff, dir)
	}
	word := "not beyond"
	if below {
		word = "beyond"
	}
	return fmt.Sprintf("%.*f %s, %s the margin %.*f (%d standard errors over seeds)", dec, diff, dir, word, dec, margin, MarginFactor)
}

func finite(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}
