package launch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"runtime"
	"runtime/pprof"

	"windtunnel/lab"
	"windtunnel/sessions"
)

// Output is how a headless run prints.
type Output struct {
	// Predictions, when set, is the file that receives the probe set with the model's
	// distributions at the end (WritePredictions), written whole or not at all and never
	// through a link (sessions.WriteOutputFunc).
	Predictions string
	// Tty says stderr is a terminal: the progress is one line rewritten in place, else a
	// log line at each evaluation.
	Tty bool
	// Text prints the summary for a person (Summary.WriteText: a few lines) instead of its
	// JSON line: what run does when stdout is a terminal and --json is not given.
	Text bool
}

// Headless trains st with a progress line (a terminal: o.Tty) or log lines on stderr,
// records the session, serves the run on its control socket (attach, ls) and prints the
// run's end on stderr (PrintExit) and its summary (Summarize) on stdout, as JSON or, with
// o.Text, as text; with o.Predictions it then writes them there (WritePredictions).
// Cancelling ctx (a signal) stops the run cleanly: the final evaluation and checkpoint are
// recorded and the session file is closed.
func Headless(ctx context.Context, st *Run, o Output, stdout, stderr io.Writer) (err error) {
	predictions, tty := o.Predictions, o.Tty
	cfg, tr := st.Config, st.Trainer
	defer tr.Close()
	defer func() {
		if cerr := st.Writer.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	// The live feed writes the session and serves the control socket (attach, ls).
	var logger *log.Logger // the control socket's refusals: on stderr when that is a log (a detached run's)
	if !tty {
		logger = log.New(stderr, "windtunnel: ", log.LstdFlags)
	}
	ctl := StartControl(st, logger, stderr)
	defer ctl.Stop()
	tr.Attach(ctl.Live)
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
	fmt.Fprintf(stderr, "windtunnel: session %s\n", st.Writer.Path())
	prog := NewProgress(ctx, cfg.Steps, stderr, tty)
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
	// The end of the run is queued, not yet written: a full disk found now (or one that
	// stopped the run) means the session holds less than the run did, and the summary says
	// what it holds.
	werr := st.Writer.Flush()
	if werr != nil {
		res = Recorded(st.Writer.Path(), res, werr)
		if runErr == nil {
			runErr = werr
		}
	}
	if runErr != nil && res.Steps == 0 && res.Last.State != sessions.Failed {
		return runErr
	}
	s, err := Summarize(st, res, ms1.TotalAlloc-ms0.TotalAlloc, runErr)
	if err != nil {
		return fmt.Errorf("run: summary: %w", err)
	}
	if werr != nil {
		s.WriteError = sessions.SafeText(werr.Error())
	}
	PrintExit(stderr, cfg.Task, res, st.Writer.Path())
	if o.Text {
		verdict := ""
		if v, ok := FinalVerdict(cfg.Task, res); ok {
			verdict = v.String()
		}
		err = s.WriteText(stdout, verdict)
	} else {
		err = json.NewEncoder(stdout).Encode(s)
	}
	if err != nil {
		return fmt.Errorf("run: write summary: %w", err)
	}
	if predictions != "" && runErr == nil {
		if err := sessions.WriteOutputFunc(predictions, 0o644, func(w io.Writer) error { return WritePredictions(w, tr, res) }); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	}
	return runErr
}

// PrintExit prints the run's end on w: its state, steps and time, the final bit errors and
// KL, the verdict (FinalVerdict), and the session file.
func PrintExit(w io.Writer, task string, res lab.Result, session string) {
	verdict := "no final evaluation"
	if v, ok := FinalVerdict(task, res); ok {
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
