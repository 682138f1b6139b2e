package main

import (
	"fmt"
	"io"
	"math"

	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// summaryVerdict is the run summary's verdict: its final evaluation judged by the
// tunnel's criterion (derived.VerdictOf, as compare judges a run).
type summaryVerdict struct {
	Pass bool `json:"pass"`
	// Measure is the summary field judged: "bit_error_position" (bit error (a), the paper's
	// headline) or, for recall, "accuracy".
	Measure string `json:"measure"`
	// Value is that field (null when not finite) and Threshold the pass line.
	Value     *float64 `json:"value"`
	Threshold float64  `json:"threshold"`
	// Rule is the criterion as text: "bit error (a) ≤ 0.15".
	Rule string `json:"rule"`
}

// finalVerdict is the verdict of a run's final evaluation; false when the run ended
// without one.
func finalVerdict(task string, res lab.Result) (derived.Verdict, bool) {
	if res.Last.Eval == nil {
		return derived.Verdict{}, false
	}
	return derived.VerdictOf(task, *res.Last.Eval), true
}

// verdictOf is the summary's verdict of res (nil without a final evaluation).
func verdictOf(task string, res lab.Result) *summaryVerdict {
	v, ok := finalVerdict(task, res)
	if !ok {
		return nil
	}
	s := &summaryVerdict{Pass: v.Pass, Measure: v.Metric, Threshold: v.Threshold, Rule: v.Rule()}
	if !math.IsNaN(v.Value) && !math.IsInf(v.Value, 0) {
		val := v.Value
		s.Value = &val
	}
	return s
}

// printExit prints the run's end on w: its state, steps and time, the final bit errors and
// KL, the verdict, and the session file. A run that failed says why and gives its last
// evaluation, at its step, as recorded (NaN where the model had diverged).
func printExit(w io.Writer, task string, res lab.Result, session string) {
	verdict := "no final evaluation"
	if v, ok := finalVerdict(task, res); ok {
		verdict = v.String()
	}
	end := fmt.Sprintf("%s after %d steps (%.1f s): ", res.Last.State, res.Steps, res.WallS)
	if res.Last.State == sessions.Failed && res.Last.Message != "" {
		end += res.Last.Message + "; "
	}
	e, at := res.Last.Eval, ""
	if e == nil && res.LastEval.Eval != nil {
		e, at = res.LastEval.Eval, fmt.Sprintf("last evaluation (step %d): ", res.LastEval.Step)
	}
	scores := "no evaluation recorded"
	if e != nil {
		scores = fmt.Sprintf("%sbit error (a) %.4f (b) %.4f, KL %.4f bits", at, e.BitErrorPosition, e.BitErrorSample, e.KLBits)
	}
	fmt.Fprintf(w, "windtunnel: %s%s; %s\nwindtunnel: session %s\n", end, scores, verdict, session)
}
