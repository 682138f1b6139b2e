package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/lab"
	"windtunnel/lab/launch"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
)

// runFlags are the flags of `windtunnel run`: its configuration flags (runconfig.BindFlags:
// the one table of them), and how this run is carried out.
type runFlags struct {
	c           runconfig.Flags
	headless    bool
	predictions string
	out         string
	resume      string
}

func (f *runFlags) register(fs *pflag.FlagSet) {
	runconfig.BindFlags(fs, &f.c)
	fs.BoolVar(&f.headless, "headless", false, "no TUI: a progress line on a terminal, log lines otherwise, and a summary on stdout at the end: a few lines on a terminal, a JSON line otherwise or with --json (implied when stdin or stdout is not a terminal)")
	fs.StringVar(&f.predictions, "predictions", "", "write the probe set with the model's distributions to this JSON Lines file")
	fs.StringVar(&f.out, "out", "", "session file to write, in an existing folder (default ./runs/<time>-<task>-<model>.wtlab, the folder created)")
	fs.StringVar(&f.resume, "resume", "", "continue the session FILE from its last checkpoint (model, optimiser, schedule and data stream); from step 0 if it has none")
}

// config is the configuration the flags give (runconfig.Flags.Config, --like read by
// derived.ReadLike); a refusal is a usage error.
func (f *runFlags) config() (runconfig.Config, error) {
	c, err := f.c.Config(derived.ReadLike)
	if err != nil {
		return runconfig.Config{}, usageError{Err: err}
	}
	return c, nil
}

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
		cfg, err := f.config()
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
	o := f.c.Overrides
	o.Given = fs.Changed
	return resumeSetup(f.resume, o)
}

// checkResumeFlags rejects the flags that cannot go with --resume (launch.CheckResumeFlags).
func checkResumeFlags(fs *pflag.FlagSet) error {
	var given []string
	fs.Visit(func(fl *pflag.Flag) { given = append(given, fl.Name) })
	if err := launch.CheckResumeFlags(given); err != nil {
		return usageError{Err: err}
	}
	return nil
}

// resumeSetup reopens a session to continue it from its last checkpoint (launch.Resume),
// with the settings given in o that a resume may change (launch.ResumeSettings). A session
// with no checkpoint yet (a run stopped before its first) restarts from step 0 with its
// configuration: its records are discarded and the run recomputes them.
func resumeSetup(path string, o runconfig.Overrides) (*launch.Run, error) {
	stored, ck, err := launch.Resumable(path)
	if err != nil {
		return nil, usageError{Err: fmt.Errorf("--resume: %w", err)}
	}
	cfg := o.Apply(stored, launch.ResumeSettings...)
	if err := cfg.Validate(); err != nil {
		return nil, usageError{Err: runconfig.FlagError(err)}
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
