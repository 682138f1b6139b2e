package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"windtunnel/lab/launch"

	"windtunnel/lab"
)

// runHeadless trains with a progress line (or log lines) on stderr, records the session,
// serves the run on its control socket (attach, ls), and prints the JSON summary. SIGINT, SIGTERM and SIGHUP stop the run cleanly: the final
// evaluation and checkpoint are recorded and the session file is closed.
func runHeadless(ctx context.Context, st *launch.Run, predictions string, stdout, stderr io.Writer) (err error) {
	ctx, cancel := signalContext(ctx)
	defer cancel()
	cfg, tr := st.Config, st.Trainer
	defer tr.Close()
	defer func() {
		if cerr := st.Writer.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	// The live feed writes the session and serves the control socket (attach, ls).
	ctl := launch.StartControl(st, controlLogger(stderr), stderr)
	defer ctl.Stop()
	tr.Attach(ctl.Live)
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
	fmt.Fprintf(stderr, "windtunnel: session %s\n", st.Writer.Path())
	prog := launch.NewProgress(ctx, cfg.Steps, stderr, isTerminal(stderr))
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
	if runErr != nil && res.Steps == 0 {
		return runErr
	}
	s, err := launch.Summarize(st, res, ms1.TotalAlloc-ms0.TotalAlloc, runErr)
	if err != nil {
		return fmt.Errorf("run: summary: %w", err)
	}
	printExit(stderr, cfg.Task, res, st.Writer.Path())
	if err := json.NewEncoder(stdout).Encode(s); err != nil {
		return fmt.Errorf("run: write summary: %w", err)
	}
	if pw != nil && runErr == nil {
		if err := launch.WritePredictions(pw, tr, res); err != nil {
			return fmt.Errorf("run: %w", err)
		}
	}
	return runErr
}

// controlLogger is where a headless run logs its control socket's refusals: its stderr
// when that is a log (a detached run's), nowhere when it is a terminal showing the
// progress line.
func controlLogger(stderr io.Writer) *log.Logger {
	if isTerminal(stderr) {
		return nil
	}
	return log.New(stderr, "windtunnel: ", log.LstdFlags)
}
