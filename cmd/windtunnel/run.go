package main

import (
	"errors"
	"fmt"
	"io"
	"time"
	"windtunnel/lab/launch"
	"windtunnel/sessions/runconfig"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/lab"
	"windtunnel/sessions"
)

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	var lf labelFlags
	var detach, asJSON bool
	c := &cobra.Command{
		Use:   "run",
		Short: "Train a network on a tunnel and score it against the Bayes optimum",
		Long:  runLong,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := lf.labels(); err != nil { // checked before anything starts
				return err
			}
			if detach {
				return runDetached(cmd.Context(), &f, cmd.Flags(), stdout)
			}
			outliveOutput()
			// SIGTERM and ctrl+c stop the run cleanly from before it takes its session's lock
			// (in setup), which is how sweep cancel and scancel find it: one that comes while
			// the trainer is built stops the run at its first step, with its session closed.
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			st, err := f.setup(cmd.Flags())
			if err != nil {
				return err
			}
			if st.Note != "" {
				fmt.Fprintf(stderr, "windtunnel: %s\n", st.Note)
			}
			if err := lf.apply(st); err != nil {
				st.Close()
				return err
			}
			if !f.headless && f.predictions == "" && !asJSON && onTerminal(stdout) {
				return launch.WithDashboard(ctx, st, stdout, stderr, isTerminal(stderr))
			}
			if f.predictions != "" { // written at the end; a link or a folder refused now
				err := sessions.CheckOutput(f.predictions)
				if err == nil {
					err = sessions.CheckNewFile(f.predictions) // its folder exists and is writable
				}
				if err != nil {
					st.Close()
					return usagef("--predictions: %v", err)
				}
			}
			// A person at a terminal reads a few lines; a program (or --json) the JSON line.
			out := launch.Output{Predictions: f.predictions, Tty: isTerminal(stderr), Text: !asJSON && isTerminal(stdout)}
			return launch.Headless(ctx, st, out, stdout, stderr)
		},
	}
	f.register(c.Flags())
	lf.register(c.Flags())
	jsonFlag(c.Flags(), &asJSON, "the summary as a JSON line also when stdout is a terminal (implies --headless)")
	c.Flags().BoolVar(&detach, "detach", false, "run in the background (headless, its output in <session>.log), print how to attach, and return at once")
	return c
}

// setup builds the trainer and opens the session (new, or the resumed one).
func (f *runFlags) setup(fs *pflag.FlagSet) (*launch.Run, error) {
	if f.resume == "" {
		cfg, err := f.config(fs)
		if err != nil {
			return nil, err
		}
		path := f.out
		if path == "" {
			path = launch.DefaultPath(cfg, time.Now())
		} else if err := checkOutDir(path); err != nil {
			return nil, err
		}
		run, err := launch.New(cfg, path, version)
		var de *lab.DeviceError
		switch {
		case errors.As(err, &de):
			return nil, deviceError(de)
		case err != nil:
			return nil, fmt.Errorf("run: %w", err)
		}
		return run, nil
	}
	if err := checkResumeFlags(fs); err != nil {
		return nil, err
	}
	return resumeSetup(f.resume, func(cfg *runconfig.Config) {
		if fs.Changed("steps") {
			cfg.Steps = f.o.Steps
		}
		if fs.Changed("workers") {
			cfg.Workers = f.o.Workers
		}
		if fs.Changed("blas") {
			cfg.BLAS = f.o.BLAS
		}
		if fs.Changed("device") {
			cfg.Device = f.o.Device
		}
	})
}

// checkResumeFlags rejects the flags that cannot go with --resume (launch.CheckResumeFlags).
func checkResumeFlags(fs *pflag.FlagSet) error {
	var given []string
	fs.Visit(func(fl *pflag.Flag) { given = append(given, fl.Name) })
	if err := launch.CheckResumeFlags(given); err != nil {
		return usageError{err}
	}
	return nil
}

// resumeSetup reopens a session to continue it from its last checkpoint (launch.Resume),
// with the configuration changes adjust makes (steps, workers, BLAS, device). A session
// with no checkpoint yet (a run stopped before its first) restarts from step 0 with its
// configuration: its records are discarded and the run recomputes them.
func resumeSetup(path string, adjust func(*runconfig.Config)) (*launch.Run, error) {
	stored, ck, err := launch.Resumable(path)
	if err != nil {
		return nil, usageError{fmt.Errorf("--resume: %w", err)}
	}
	cfg := stored
	adjust(&cfg)
	if err := cfg.Validate(); err != nil {
		return nil, flagError(err)
	}
	if ck != nil && ck.Step >= cfg.Steps {
		return nil, usagef("--resume %s: the last checkpoint is at step %d and the run has %d steps: nothing to do (raise --steps)", path, ck.Step, cfg.Steps)
	}
	run, err := launch.Resume(path, stored, cfg, ck)
	var de *lab.DeviceError
	switch {
	case errors.As(err, &de):
		return nil, deviceError(de)
	case err != nil:
		return nil, fmt.Errorf("--resume: %w", err)
	}
	return run, nil
}

// checkOutDir checks that an explicit --out names a file in an existing, writable
// directory (sessions.CheckNewFile; only the default ./runs is created): a bad --out is a
// bad command line, as a bad value is: exit 2.
func checkOutDir(path string) error {
	if err := sessions.CheckNewFile(path); err != nil {
		return usagef("run: --out %w", err)
	}
	return nil
}
