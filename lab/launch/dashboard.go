package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"windtunnel/sessions"
	"windtunnel/tui"
)

// openLog opens the dashboard's log file next to the session (never the terminal).
func openLog(session string) (*log.Logger, func(), error) {
	f, err := sessions.OpenLog(sessions.LogPath(session)) // a link planted there is refused, not followed
	if err != nil {
		return nil, nil, err
	}
	return log.New(f, "", log.LstdFlags|log.Lmicroseconds), func() { f.Close() }, nil
}

// WithDashboard trains st on a background goroutine while the dashboard (on this process's
// terminal) shows the live feed. Quitting the dashboard asks first (foreground.go): stop the
// run cleanly (final evaluation and checkpoint), then close the session; or detach, and the
// run goes on in this process, headless and cut loose from the terminal (its output in
// <session>.log), until it ends. Cancelling ctx (SIGINT, SIGTERM and, until it detached,
// SIGHUP: a dropped SSH connection) stops it cleanly too, recorded as interrupted. stderr
// is the terminal's (a terminal: tty) until the run detaches; a run that detached ends its
// log as a run --detach does, with the summary's JSON line on stdout (the log by then).
func WithDashboard(ctx context.Context, st *Run, stdout, stderr io.Writer, tty bool) (err error) {
	logger, closeLog, err := openLog(st.Writer.Path())
	if err != nil {
		st.Close()
		return err
	}
	defer closeLog()
	tr := st.Trainer
	defer tr.Close()
	// The live feed writes the session and serves the control socket (attach, ls).
	ctl := StartControl(st, logger, logger.Writer())
	defer ctl.Stop()
	live := ctl.Live
	tr.Attach(live)
	bg := &DetachedProgress{} // the progress line, once detached
	tr.Attach(bg)
	// The trainer sees the signals (and records the run as interrupted); the dashboard's
	// end does not stop it.
	trainCtx, stopTrain := context.WithCancel(ctx)
	defer stopTrain()
	done := make(chan Outcome, 1)
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	logger.Printf("run: %s %s, %d parameters, session %s", st.Config.Task, st.Meta.Model, st.Meta.Params, st.Writer.Path())
	// The labels let a CPU profile (WINDTUNNEL_CPUPROFILE) split the process's time
	// between the trainer and the dashboard: go tool pprof -tags.
	go pprof.Do(trainCtx, pprof.Labels("part", "trainer"), func(ctx context.Context) {
		res, err := tr.Run(ctx)
		live.End()
		done <- Outcome{Res: res, Err: err}
	})
	uiCtx, endUI := WatchTerminal(ctx, os.Stdin, time.Second)
	defer endUI()
	var ui tui.Stats
	var uiErr error
	opts := tui.Options{Logger: logger, AltScreen: true, DetachNote: detachNote(os.Getpid(), st.Writer.Path(), ctl.Socket != ""),
		RunPID: os.Getpid()} // the run trains in this process: its System pane samples it
	pprof.Do(uiCtx, pprof.Labels("part", "dashboard"), func(ctx context.Context) {
		ui, uiErr = tui.Run(ctx, live, opts)
	})
	var o Outcome
	released := false
	switch {
	case ctx.Err() != nil: // a signal: the trainer has it too
		o = <-done
	case ui.Detached || uiErr != nil || errors.Is(context.Cause(uiCtx), ErrTerminalLost):
		// Detached, or the dashboard failed, or its terminal went away with SIGHUP ignored:
		// the run goes on here.
		why := "detached"
		switch {
		case uiErr != nil:
			why = "the dashboard failed: " + uiErr.Error()
			fmt.Fprintf(stderr, "windtunnel: %s\n", why)
		case !ui.Detached:
			why = ErrTerminalLost.Error()
		}
		logger.Printf("run: %s; the run goes on in this process", why)
		fate := "run continues"
		if ui.Paused { // left paused in the quit dialog: say so, not that it trains
			fate = "run " + ui.Fate()
		}
		o, released = continueDetached(ctx, bg, st.Config.Steps, st.Writer.Path(), fate, done, stderr, tty)
	default: // stop chosen (the event went), or the run had ended
		if !ui.Stopped {
			tr.Send(sessions.Event{Kind: sessions.EventStop})
		}
		o = AwaitStop(done, stopTrain)
	}
	ctl.Stop()
	if cerr := st.Writer.Close(); cerr != nil {
		o.Res = Recorded(st.Writer.Path(), o.Res, cerr) // the exit line says what the session holds
		if err == nil {
			err = cerr
		}
	}
	if uiErr != nil {
		logger.Printf("tui: %v", uiErr)
		if err == nil {
			err = fmt.Errorf("tui: %w", uiErr)
		}
	}
	if o.Err != nil && err == nil {
		err = o.Err
	}
	PrintExit(stderr, st.Config.Task, o.Res, st.Writer.Path())
	if released && (o.Err == nil || o.Res.Steps > 0 || o.Res.Last.State == sessions.Failed) {
		// As Headless prints it (its allocations count the dashboard's until it closed).
		var ms1 runtime.MemStats
		runtime.ReadMemStats(&ms1)
		s, serr := Summarize(st, o.Res, ms1.TotalAlloc-ms0.TotalAlloc, o.Err)
		if serr == nil {
			serr = json.NewEncoder(stdout).Encode(s)
		}
		if serr != nil && err == nil {
			err = fmt.Errorf("run: summary: %w", serr)
		}
	}
	return err
}
