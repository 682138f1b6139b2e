package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/pprof"
	"time"

	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/tui"
)

// openLog opens the dashboard's log file next to the session (never the terminal).
func openLog(session string) (*log.Logger, func(), error) {
	f, err := os.OpenFile(session+".log", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("log: %w", err)
	}
	return log.New(f, "", log.LstdFlags|log.Lmicroseconds), func() { f.Close() }, nil
}

// runTUI trains on a background goroutine while the dashboard shows the live feed. Quitting
// the dashboard stops the run cleanly (final evaluation and checkpoint), then closes the
// session; SIGTERM and SIGHUP (a dropped SSH connection) do the same.
func runTUI(ctx context.Context, st *runSetup, stdout, stderr io.Writer) (err error) {
	ctx, cancel := signalContext(ctx)
	defer cancel()
	logger, closeLog, err := openLog(st.w.Path())
	if err != nil {
		st.w.Close()
		return err
	}
	defer closeLog()
	tr := st.tr
	defer tr.Close()
	live := sessions.NewLive(st.meta, tr, st.w)
	tr.Attach(live)
	trainCtx, stopTrain := context.WithCancel(context.Background())
	defer stopTrain()
	type outcome struct {
		res lab.Result
		err error
	}
	done := make(chan outcome, 1)
	logger.Printf("run: %s %s, %d parameters, session %s", st.cfg.Task, st.meta.Model, st.meta.Params, st.w.Path())
	// The labels let a CPU profile (WINDTUNNEL_CPUPROFILE) split the process's time
	// between the trainer and the dashboard: go tool pprof -tags.
	go pprof.Do(trainCtx, pprof.Labels("part", "trainer"), func(ctx context.Context) {
		res, err := tr.Run(ctx)
		live.End()
		done <- outcome{res, err}
	})
	var uiErr error
	pprof.Do(ctx, pprof.Labels("part", "dashboard"), func(ctx context.Context) {
		_, uiErr = tui.Run(ctx, live, tui.Options{Logger: logger, AltScreen: true})
	})
	tr.Send(sessions.Event{Kind: sessions.EventStop})
	var o outcome
	select {
	case o = <-done:
	case <-time.After(2 * time.Minute): // a paused or slow step: cancel
		stopTrain()
		o = <-done
	}
	if cerr := st.w.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if uiErr != nil {
		logger.Printf("tui: %v", uiErr)
		if err == nil {
			err = fmt.Errorf("tui: %w", uiErr)
		}
	}
	if o.err != nil && err == nil {
		err = o.err
	}
	s := o.res.Scores
	fmt.Fprintf(stderr, "windtunnel: %s after %d steps (%.1f s): bit error (a) %.4f (b) %.4f, KL %.4f bits\nwindtunnel: session %s\n",
		o.res.Last.State, o.res.Steps, o.res.WallS, s.BitErrorPosition, s.BitErrorSample, s.KLBits, st.w.Path())
	return err
}
