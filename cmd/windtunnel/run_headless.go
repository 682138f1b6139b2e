package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"windtunnel/sessions"

	"windtunnel/diagnostics"
	"windtunnel/lab"
	"windtunnel/tunnels"
)

// summary is the JSON line printed at the end of a run.
type summary struct {
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
	// run that failed, its last evaluation (non-finite numbers as null), at EvalStep (0: none).
	Eval     sessions.Eval `json:"eval"`
	EvalStep int           `json:"eval_step"`
	// Message says why a run failed (the record's message).
	Message     string                     `json:"message,omitempty"`
	PerPosition diagnostics.PositionCurves `json:"per_position"`
	// Config is the run's configuration resolved for display (lab.Effective: the task's
	// sizes and target with defaults applied, the model's own block); the session stores
	// runconfig.Config itself.
	Config  lab.Effective `json:"config"`
	Session string        `json:"session"`
	// Verdict is the final evaluation against the tunnel's pass line (absent without one).
	Verdict *summaryVerdict `json:"verdict,omitempty"`
}

// runHeadless trains with a progress line (or log lines) on stderr, records the session,
// serves the run on its control socket (attach, ls), and prints the JSON summary. SIGINT, SIGTERM and SIGHUP stop the run cleanly: the final
// evaluation and checkpoint are recorded and the session file is closed.
func runHeadless(ctx context.Context, st *runSetup, predictions string, stdout, stderr io.Writer) (err error) {
	ctx, cancel := signalContext(ctx)
	defer cancel()
	cfg, tr := st.cfg, st.tr
	defer tr.Close()
	defer func() {
		if cerr := st.w.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	// The live feed writes the session and serves the control socket (attach, ls).
	ctl := startControl(st, controlLogger(stderr), stderr)
	defer ctl.stop()
	tr.Attach(ctl.live)
	var pw *os.File
	if predictions != "" {
		if pw, err = os.Create(predictions); err != nil {
			return usagef("--predictions: %v", err)
		}
		defer pw.Close()
	}
	m := tr.Model()
	from := ""
	if tr.Step() > 0 {
		from = fmt.Sprintf(" (resumed at step %d)", tr.Step())
	}
	fmt.Fprintf(stderr, "windtunnel: %s %s, %d parameters, batch %d, %d steps%s, BLAS: %s\n",
		cfg.Task, m.Kind(), m.NumParams(), cfg.Batch, cfg.Steps, from, tr.BLAS())
	if d := tr.Device(); d.Kind != "cpu" {
		line := fmt.Sprintf("windtunnel: device %s: %s", d.Kind, d.Name)
		if d.Driver != "" {
			line += " (" + d.Driver + ")"
		}
		fmt.Fprintln(stderr, line)
	}
	fmt.Fprintf(stderr, "windtunnel: session %s\n", st.w.Path())
	prog := newProgressLine(ctx, cfg.Steps, stderr)
	tr.Attach(prog)
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var res lab.Result
	var runErr error
	pprof.Do(ctx, pprof.Labels("part", "trainer"), func(ctx context.Context) {
		res, runErr = tr.Run(ctx)
	})
	runtime.ReadMemStats(&ms1)
	prog.Close()
	if runErr != nil && res.Steps == 0 && res.Last.State != sessions.Failed {
		return runErr
	}
	s := summary{
		Task: cfg.Task, Model: m.Kind(), Params: m.NumParams(), Steps: res.Steps, WallS: round(res.WallS, 3),
		BLAS: tr.BLAS(), State: string(res.Last.State),
		Eval: *lab.EvalRecord(res.Scores), PerPosition: res.Scores.PerPosition, Session: st.w.Path(),
		Verdict: verdictOf(cfg.Task, res),
	}
	if s.Config, err = lab.EffectiveOf(cfg); err != nil {
		return fmt.Errorf("run: summary: %w", err)
	}
	if res.Steps > 0 {
		s.MsPerStep = round(res.MedianStepMs(), 2)
		s.EvalS, s.GeometryS = round(res.EvalS, 3), round(res.GeometryS, 3)
		s.AllocPerStep = round(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(res.Steps), 0)
	}
	if runErr != nil {
		s.State, s.Message = string(sessions.Failed), res.Last.Message
	}
	if e := res.LastEval.Eval; e != nil {
		s.EvalStep = res.LastEval.Step
		if res.Last.Eval == nil { // no final evaluation: the last one taken
			s.Eval = *e
		}
	}
	printExit(stderr, cfg.Task, res, st.w.Path())
	if err := json.NewEncoder(stdout).Encode(s); err != nil {
		return fmt.Errorf("run: write summary: %w", err)
	}
	if pw != nil && runErr == nil {
		if err := writePredictions(pw, tr, res); err != nil {
			return err
		}
	}
	return runErr
}

func round(x float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}

func writePredictions(f *os.File, tr *lab.Trainer, res lab.Result) error {
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
			return fmt.Errorf("run: write predictions: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("run: write predictions: %w", err)
	}
	return nil
}
