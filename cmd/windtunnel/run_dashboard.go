package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"windtunnel/lab"
	"windtunnel/sessions"
	"windtunnel/tui"
)

// onTerminal reports whether both stdin and stdout are terminals (so the TUI can own them).
func onTerminal(stdout io.Writer) bool {
	f, ok := stdout.(*os.File)
	return ok && isatty.IsTerminal(f.Fd()) && isatty.IsTerminal(os.Stdin.Fd())
}

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
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
	defer cancel()
	logger, closeLog, err := openLog(st.w.Path())
	if err != nil {
		st.w.Close()
		return err
	}
	defer closeLog()
	tr := st.tr
	defer tr.Close()
	send := func(e sessions.Event) error {
		c, err := lab.CommandOf(e)
		if err != nil {
			return err
		}
		if !tr.Send(c) {
			return errors.New("the trainer's command queue is full")
		}
		return nil
	}
	live := sessions.NewLive(st.meta, sessions.ControlFunc(send), st.w)
	tr.Attach(live)
	// The records channel (headless progress) is left undrained: the trainer's non-blocking
	// send just counts drops, and no goroutine wakes per record.
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
	tr.Send(lab.Command{Kind: lab.Stop})
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

func newReplayCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "replay FILE [FILE...]",
		Short: "Open the dashboard on a saved session (follows it if a run is still writing it); several sessions: overlay their bit error",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s takes one or more session files", c.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !onTerminal(stdout) {
				return usagef("replay needs a terminal; use `windtunnel info` or `windtunnel export` to read a session without one")
			}
			var feeds []sessions.Feed
			var names []string
			task := ""
			for _, path := range args {
				r, err := sessions.Open(path)
				if err != nil {
					return err
				}
				defer r.Close()
				if task == "" {
					task = r.Meta().Task
				} else if r.Meta().Task != task {
					return usagef("replay: %s is a %s session and %s a %s one: overlay sessions of one task", args[0], task, path, r.Meta().Task)
				}
				r.Follow(500 * time.Millisecond)
				feeds = append(feeds, r)
				names = append(names, fmt.Sprintf("%s (%s)", r.Meta().Model, filepath.Base(path)))
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, cancel := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
			defer cancel()
			logger, closeLog, err := openLog(args[0] + ".replay")
			if err != nil {
				logger, closeLog = log.New(io.Discard, "", 0), func() {}
			}
			defer closeLog()
			opts := tui.Options{Logger: logger, AltScreen: true}
			if len(feeds) > 1 {
				return tui.RunOverlay(ctx, feeds, names, opts)
			}
			_, err = tui.Run(ctx, feeds[0], opts)
			return err
		},
	}
}
