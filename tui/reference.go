package tui

import (
	"fmt"
	"math"
	"windtunnel/sessions/runconfig"

	"windtunnel/backends/untrusted"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// readConfig decodes the configuration of m (runconfig.Config, as the session stores it), of
// which the dashboard reads the evaluation cadence, the gradient-norm clip and the workers;
// zero when it has none or it does not decode.
func readConfig(m sessions.Meta) runconfig.Config {
	var c runconfig.Config
	if len(m.Config) > 0 {
		if err := untrusted.Unmarshal(m.Config, &c); err != nil {
			return runconfig.Config{}
		}
	}
	return c
}

// firstEvalStep is the step of the next evaluation after the newest record on the
// evaluation cadence (eval_every), or the last step when that comes first (the lab
// evaluates the final step too); 0 when the cadence is unknown.
func firstEvalStep(sh *shared) int {
	every := sh.cfg.EvalEvery
	if every <= 0 {
		return 0
	}
	cur := 0
	if sh.hasRec {
		cur = sh.rec.Step
	}
	next := (cur/every + 1) * every
	if sh.meta.Steps > 0 && next > sh.meta.Steps {
		next = sh.meta.Steps
	}
	return next
}

// waitingForEval says when the first evaluation comes: "no evaluations yet · first
// evaluation at step 500", or without the step when the cadence is unknown.
func waitingForEval(sh *shared) string {
	if n := firstEvalStep(sh); n > 0 {
		return fmt.Sprintf("no evaluations yet · first evaluation at step %d", n)
	}
	return "no evaluations yet"
}

// contextFree is the context-free level of the run's bit error where it is known
// (derived.ContextFreeOf: a bijection's, V from the configuration or the newest
// evaluation's Bayes curve).
func contextFree(sh *shared) float64 {
	n := 0
	if e := sh.lastEval(); e != nil {
		n = len(e.Eval.BayesEntropy)
	}
	return derived.ContextFreeOf(sh.meta, n)
}

// bitRefs are the bit-error chart's reference lines, in the chart's units (log10 on a log
// axis, where Bayes' 0 has no place): the Bayes optimum at 0, the pass threshold and, where
// known, the context-free level.
func bitRefs(sh *shared, log bool) []look.RefLine {
	conv := func(v float64) float64 {
		if log {
			return math.Log10(v)
		}
		return v
	}
	var refs []look.RefLine
	if !log {
		refs = append(refs, look.RefLine{Y: 0, Tick: "0", Label: "Bayes"})
	}
	refs = append(refs, look.RefLine{Y: conv(derived.PassBits), Tick: look.Num(derived.PassBits, 2), Label: "pass"})
	if cf := contextFree(sh); !math.IsNaN(cf) {
		refs = append(refs, look.RefLine{Y: conv(cf), Tick: look.Num(cf, 2), Label: "no context"})
	}
	return refs
}

// runVerdict judges the newest evaluation up to the step by its tunnel's criterion
// (derived.VerdictOf: bit error (a) ≤ derived.PassBits, recall's accuracy ≥
// derived.PassAccuracy); false before the first evaluation.
func runVerdict(sh *shared) (derived.Verdict, bool) {
	e := sh.lastEval()
	if e == nil {
		return derived.Verdict{}, false
	}
	return derived.VerdictOf(sh.meta.Task, *e.Eval), true
}

// verdictWord is the verdict's status at the step (derived.Verdict.Status: pass or FAIL
// once the run has ended there, else passing or not yet), styled good or warn.
func verdictWord(sh *shared, v derived.Verdict) string {
	w := v.Status(sh.hasRec && derived.Ended(sh.rec.State))
	if v.Pass {
		return sh.st.Good.Render(w)
	}
	return sh.st.Warn.Render(w)
}

// verdictLine is the Run pane's verdict row: "pass: bit error (a) 0.063 ≤ 0.15", or the
// criterion alone before the first evaluation.
func verdictLine(sh *shared) string {
	v, ok := runVerdict(sh)
	if !ok {
		return "– (pass: " + derived.CriterionOf(sh.meta.Task).Rule() + ")"
	}
	return verdictWord(sh, v) + ": " + v.Comparison(3)
}

// verdictPart is the header's short verdict, beside the bit errors it shows: "pass ≤
// 0.15", "not yet > 0.15"; "FAIL accuracy 0.253 < 0.9" where the measure is not among
// them; "" before the first evaluation.
func verdictPart(sh *shared) string {
	v, ok := runVerdict(sh)
	if !ok {
		return ""
	}
	if v.AtLeast() {
		return verdictWord(sh, v) + " " + v.Comparison(3)
	}
	return verdictWord(sh, v) + " " + v.Against()
}
