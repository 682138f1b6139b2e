package reports

import (
	"fmt"
	"strings"

	"windtunnel/sessions/derived"
)

// The verdicts of a row (derived.Outcome; docs/paper1.md: "The report's verdicts").
const (
	Reproduced    = derived.Reproduced
	Consistent    = derived.ConsistentNotDiagnostic
	NotReproduced = derived.NotReproduced
	NotMeasured   = derived.NotMeasured
)

// learnt splits runs of a task into those that pass it (derived.VerdictOfScores: they learnt
// the task, so how they do it may be judged) and those that do not; why says what was left
// out: "the model did not learn the task (bit error (a) 1.0800 > pass 0.15 in 2/2 seeds)"
// when none passes, else which seeds were left out ("" when none).
func learnt(task string, rs []Run) (used []Run, why string) {
	var failed []Run
	var fv []float64
	for _, r := range rs {
		v := derived.VerdictOfScores(task, r.Score.Scores)
		if v.Pass {
			used = append(used, r)
			continue
		}
		failed = append(failed, r)
		fv = append(fv, v.Value)
	}
	if len(failed) == 0 {
		return used, ""
	}
	v := derived.Verdict{Primitive: derived.CriterionOf(task), Value: derived.MeanFinite(fv)}
	v.Pass = v.Meets(v.Value)
	op, _, _ := strings.Cut(v.Against(), " ")
	cmp := fmt.Sprintf("%s %.4f %s pass %g", v.Measure(), v.Value, op, v.Threshold)
	if len(used) == 0 {
		return nil, fmt.Sprintf("the model did not learn the task (%s in %d/%d seeds); how it does it is not judged", cmp, len(failed), len(rs))
	}
	names := make([]string, len(failed))
	for i, r := range failed {
		names[i] = r.File
	}
	return used, fmt.Sprintf("judged on the %d of %d seeds that learnt the task; left out, not having learnt it (%s): %s", len(used), len(rs), cmp, strings.Join(names, ", "))
}

// onLearnt builds a geometry row (build) from the runs of rs that learnt their task: the
// row is not measured, with the reason, when none did, and names the seeds left out when
// some did not.
func onLearnt(task string, rs []Run, build func([]Run) Row) Row {
	used, why := learnt(task, rs)
	row := build(used)
	switch {
	case len(rs) > 0 && len(used) == 0:
		row.Verdict, row.Reason, row.Measured, row.Values, row.Config = NotMeasured, why, "", nil, configOf(rs)
	case why != "":
		row.Reason += "; " + why
	}
	return row
}

// judge sets a row's verdict from whether the bench meets the criterion and the null
// (derived.Outcome) and adds the null's clause to its reason.
func judge(row *Row, meets bool, null derived.Null) {
	row.Verdict = derived.Outcome(meets, null)
	row.Reason += "; " + derived.NullClause(null)
}

// stepsText names the steps values were taken at: "step 100", "steps 100–125".
func stepsText(steps []int) string {
	lo, hi := steps[0], steps[0]
	for _, s := range steps {
		lo, hi = min(lo, s), max(hi, s)
	}
	if lo == hi {
		return fmt.Sprintf("step %d", lo)
	}
	return fmt.Sprintf("steps %d–%d", lo, hi)
}

// firstEvalNull is the null of a row judged on each run's final evaluation: the same
// criterion (meets) on the mean over runs of value at their first evaluation (FirstEval),
// which no run records before training. what names the value.
func firstEvalNull(rs []Run, what string, value func(Run) (float64, bool), meets func(float64) bool, dec int) derived.Null {
	var vs []float64
	var steps []int
	for _, r := range rs {
		if r.FirstEval == nil {
			continue
		}
		if v, ok := value(r); ok {
			vs, steps = append(vs, v), append(steps, r.FirstEvalStep)
		}
	}
	if len(vs) == 0 {
		return derived.Null{What: "no evaluation before the last one, and none of the untrained model"}
	}
	m := derived.MeanFinite(vs)
	return derived.Null{Known: true, Meets: meets(m),
		What: fmt.Sprintf("the first evaluation (%s; no run records the untrained model), %s %.*f", stepsText(steps), what, dec, m)}
}

// earliest names the earliest snapshots used as a null: "the earliest snapshot (step 500, bit
// error (a) 0.1500 there; no run records the untrained model)", the bit error the runs'
// evaluations give at those steps (curveAt) so a reader sees whether the null had already
// learnt the task.
func earliest(rs []Run, steps []int) string {
	var bits []float64
	for i, r := range rs {
		if len(r.Curve) > 0 {
			bits = append(bits, curveAt(r.Curve, steps[i]))
		}
	}
	there := ""
	if len(bits) > 0 {
		there = fmt.Sprintf(", bit error (a) %.4f there", derived.MeanFinite(bits))
	}
	return fmt.Sprintf("the earliest snapshot (%s%s; no run records the untrained model)", stepsText(steps), there)
}
