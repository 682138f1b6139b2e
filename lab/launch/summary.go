package launch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"windtunnel/diagnostics"
	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tunnels"
)

// Summary is the JSON line a headless run prints at its end.
type Summary struct {
	Task         string  `json:"task"`
	Model        string  `json:"model"`
	Params       int     `json:"params"`
	Steps        int     `json:"steps"`
	WallS        float64 `json:"wall_s"`
	MsPerStep    float64 `json:"ms_per_step"` // median training step
	EvalS        float64 `json:"eval_s"`      // time scoring the probe set
	GeometryS    float64 `json:"geometry_s"`  // time in geometry snapshots
	AllocPerStep float64 `json:"alloc_bytes_per_step"`
	BLAS         string  `json:"blas"`
	State        string  `json:"state"`
	// Eval is the final whole-model evaluation in the shape the session records it; for a
	// run that failed, its last evaluation (non-finite numbers as null), at EvalStep; null
	// when the run ended with none (never zero scores, which would read as perfect).
	Eval     *sessions.Eval `json:"eval"`
	EvalStep int            `json:"eval_step"`
	// Message says why a run failed (the record's message).
	Message string `json:"message,omitempty"`
	// WriteError is the session's write error when the end of the run could not be
	// recorded (a full disk): Steps, State and Eval then say what the session holds.
	WriteError  string                     `json:"write_error,omitempty"`
	PerPosition diagnostics.PositionCurves `json:"per_position"`
	// Config is the run's configuration resolved for display (lab.Effective: the task's
	// sizes and target with defaults applied, the model's own block); the session stores
	// runconfig.Config itself.
	Config  lab.Effective `json:"config"`
	Session string        `json:"session"`
	// Verdict is the final evaluation against the tunnel's pass line (absent without one).
	Verdict *Verdict `json:"verdict,omitempty"`
}

// Summarize is the summary of run's result: allocated is the bytes the process allocated
// while it trained, runErr the trainer's error (the state is then "failed").
func Summarize(run *Run, res lab.Result, allocated uint64, runErr error) (Summary, error) {
	cfg, tr := run.Config, run.Trainer
	m := tr.Model()
	s := Summary{
		Task: cfg.Task, Model: m.Kind(), Params: m.NumParams(), Steps: res.Steps, WallS: round(res.WallS, 3),
		BLAS: tr.BLAS(), State: string(res.Last.State),
		PerPosition: res.Scores.PerPosition, Session: run.Writer.Path(),
		Verdict: SummaryVerdict(cfg.Task, res),
	}
	var err error
	if s.Config, err = lab.EffectiveOf(cfg); err != nil {
		return s, err
	}
	if res.Steps > 0 {
		s.MsPerStep = round(res.MedianStepMs(), 2)
		s.EvalS, s.GeometryS = round(res.EvalS, 3), round(res.GeometryS, 3)
		s.AllocPerStep = round(float64(allocated)/float64(res.Steps), 0)
	}
	if runErr != nil {
		s.State, s.Message = string(sessions.Failed), res.Last.Message
	}
	switch e := res.LastEval.Eval; {
	case res.Last.Eval != nil:
		s.Eval, s.EvalStep = lab.EvalRecord(res.Scores), res.LastEval.Step
	case e != nil: // no final evaluation: the last one taken
		ev := *e
		s.Eval, s.EvalStep = &ev, res.LastEval.Step
	}
	return s, nil
}

// WriteText writes the summary for a person at a terminal, in four lines where the JSON
// line runs to kilobytes: what ran and how long it took, the final evaluation, the verdict
// (FinalVerdict's text; "" when the run ended without a final evaluation) and the session
// with the commands that read it.
func (s Summary) WriteText(w io.Writer, verdict string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "run       %s %s, %s parameters: %s after %d steps in %.1f s", sessions.SafeText(s.Task), sessions.SafeText(s.Model),
		thousands(s.Params), s.State, s.Steps, s.WallS)
	if s.MsPerStep > 0 {
		fmt.Fprintf(&b, " (%.2f ms a step, BLAS %s)", s.MsPerStep, s.BLAS)
	}
	b.WriteString("\n")
	if verdict == "" || s.Eval == nil {
		b.WriteString("final     no final evaluation\n")
	} else {
		e := s.Eval
		fmt.Fprintf(&b, "final     bit error (a) %.4f (b) %.4f, KL %.4f bits, TVD %.4f, accuracy %.4f\n",
			e.BitErrorPosition, e.BitErrorSample, e.KLBits, e.TVD, e.Accuracy)
		fmt.Fprintf(&b, "verdict   %s\n", verdict)
	}
	fmt.Fprintf(&b, "session   %s (windtunnel info, replay, export; run --json prints this summary as JSON)\n", sessions.SafeText(s.Session))
	_, err := io.WriteString(w, b.String())
	return err
}

// thousands writes n with thousands separated by commas: 203,456.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Verdict is the run summary's verdict: its final evaluation judged by the
// tunnel's criterion (derived.VerdictOf, as compare judges a run).
type Verdict struct {
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

// FinalVerdict is the verdict of a run's final evaluation; false when the run ended
// without one.
func FinalVerdict(task string, res lab.Result) (derived.Verdict, bool) {
	if res.Last.Eval == nil {
		return derived.Verdict{}, false
	}
	return derived.VerdictOf(task, *res.Last.Eval), true
}

// SummaryVerdict is the summary's verdict of res (nil without a final evaluation).
func SummaryVerdict(task string, res lab.Result) *Verdict {
	v, ok := FinalVerdict(task, res)
	if !ok {
		return nil
	}
	s := &Verdict{Pass: v.Pass, Measure: v.Metric, Threshold: v.Threshold, Rule: v.Rule()}
	if !math.IsNaN(v.Value) && !math.IsInf(v.Value, 0) {
		val := v.Value
		s.Value = &val
	}
	return s
}

// round rounds x to digits decimals.
func round(x float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}

// WritePredictions writes the probe set with the model's distributions at the end of the
// run (res.Q) as JSON Lines, one sequence a line: the sequence as sample --json writes it
// and "model", the distribution at each scored position (what score reads).
func WritePredictions(f io.Writer, tr *lab.Trainer, res lab.Result) error {
	t := tr.Tunnel()
	P, C := len(t.Positions()), t.Classes()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	stream := tunnels.ProbeStream(tr.Config().Seed)
	var s tunnels.Sequence
	for i := 0; i < tr.Config().ProbeSize; i++ {
		t.Fill(&s, stream, uint64(i))
		model := make([][]float64, P)
		for p := range model {
			model[p] = res.Q[(i*P+p)*C : (i*P+p+1)*C]
		}
		line := struct {
			Task  string `json:"task"`
			Index int    `json:"index"`
			tunnels.Sequence
			Model [][]float64 `json:"model"`
		}{t.Name(), i, s, model}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("write predictions: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write predictions: %w", err)
	}
	return nil
}
