package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"windtunnel/lab/runconfig"
	"windtunnel/sessions/derived"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/lab"
	"windtunnel/sessions"
)

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	var detach bool
	c := &cobra.Command{
		Use:   "run",
		Short: "Train a network on a tunnel and score it against the Bayes optimum",
		Long:  runLong,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if detach {
				return runDetached(cmd.Context(), &f, cmd.Flags(), stdout)
			}
			st, err := f.setup(cmd.Flags())
			if err != nil {
				return err
			}
			if st.note != "" {
				fmt.Fprintf(stderr, "windtunnel: %s\n", st.note)
			}
			if !f.headless && f.predictions == "" && onTerminal(stdout) {
				return runTUI(cmd.Context(), st, stdout, stderr)
			}
			return runHeadless(cmd.Context(), st, f.predictions, stdout, stderr)
		},
	}
	f.register(c.Flags())
	c.Flags().BoolVar(&detach, "detach", false, "run in the background (headless, its output in <session>.log), print how to attach, and return at once")
	return c
}

// resumeFlags are the flags that may accompany --resume; the rest come from the session.
var resumeFlags = map[string]bool{"resume": true, "headless": true, "detach": true, "steps": true, "workers": true, "blas": true, "predictions": true, "device": true}

// runSetup is a run ready to start: its trainer and the session it writes.
type runSetup struct {
	cfg  runconfig.Config
	tr   *lab.Trainer
	w    *sessions.Writer
	meta sessions.Meta
	note string // said on stderr before the run starts (a resume that restarts from step 0)
}

// setup builds the trainer and opens the session (new, or the resumed one).
func (f *runFlags) setup(fs *pflag.FlagSet) (*runSetup, error) {
	if f.resume == "" {
		cfg, err := f.config(fs)
		if err != nil {
			return nil, err
		}
		path := f.out
		if path == "" {
			path = defaultSessionPath(cfg, time.Now())
		} else if err := checkOutDir(path); err != nil {
			return nil, err
		}
		tr, err := newTrainer(cfg)
		if err != nil {
			return nil, err
		}
		meta, err := runMeta(cfg, tr, path)
		if err != nil {
			return nil, err
		}
		w, err := sessions.Create(path, meta, sessions.WriterOptions{})
		if err != nil {
			return nil, fmt.Errorf("run: %w", err)
		}
		return &runSetup{cfg: cfg, tr: tr, w: w, meta: meta}, nil
	}
	var bad []string
	fs.Visit(func(fl *pflag.Flag) {
		if !resumeFlags[fl.Name] {
			bad = append(bad, "--"+fl.Name)
		}
	})
	if len(bad) > 0 {
		return nil, usagef("--resume takes the run's settings from the session; %s cannot change them (allowed: --steps, --workers, --blas, --device, --headless, --detach, --predictions)", strings.Join(bad, ", "))
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

// resumeSetup reopens a session to continue it from its last checkpoint, with the
// configuration changes adjust makes (steps, workers, BLAS, device). A session with no
// checkpoint yet (a run stopped before its first) restarts from step 0 with its
// configuration: its records are discarded and the run recomputes them.
func resumeSetup(path string, adjust func(*runconfig.Config)) (*runSetup, error) {
	cfg, ck, err := resumeConfig(path)
	if err != nil {
		return nil, usageError{err}
	}
	stored := cfg
	adjust(&cfg)
	if err := cfg.Validate(); err != nil {
		return nil, flagError(err)
	}
	step, note := 0, ""
	if ck != nil {
		step = ck.Step
	} else {
		note = fmt.Sprintf("no checkpoint in %s: restarting from step 0 with its configuration", path)
	}
	if ck != nil && ck.Step >= cfg.Steps {
		return nil, usagef("--resume %s: the last checkpoint is at step %d and the run has %d steps: nothing to do (raise --steps)", path, ck.Step, cfg.Steps)
	}
	tr, err := newTrainer(cfg)
	if err != nil {
		return nil, err
	}
	if ck != nil {
		if err := tr.Restore(ck); err != nil {
			return nil, fmt.Errorf("--resume %s: %w", path, err)
		}
	}
	w, meta, err := sessions.Append(path, step, sessions.WriterOptions{})
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if err := replan(w, &meta, stored, cfg.Steps); err != nil {
		w.Close()
		return nil, fmt.Errorf("--resume: %w", err)
	}
	return &runSetup{cfg: cfg, tr: tr, w: w, meta: meta, note: note}, nil
}

// replan records a resumed run's planned length in its session before it starts: the
// meta's Steps, which info, ls and the dashboard's progress and ETA read, and the stored
// configuration's, from which a later --resume without --steps continues. Only the length
// changes; the rest of the stored configuration stays as given (a resume's --workers,
// --blas and --device are this process's, not the run's).
func replan(w *sessions.Writer, meta *sessions.Meta, stored runconfig.Config, steps int) error {
	if meta.Steps == steps && stored.Steps == steps {
		return nil
	}
	stored.Steps = steps
	cj, err := json.Marshal(stored)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	set := func(m *sessions.Meta) { m.Steps, m.Config = steps, cj }
	if err := w.UpdateMeta(set); err != nil {
		return err
	}
	set(meta)
	return nil
}

// checkOutDir checks that an explicit --out names a file in an existing, writable
// directory (only the default ./runs is created).
func checkOutDir(path string) error {
	if err := checkOutFile(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("run: --out %s: directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("run: --out %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("run: --out %s: %s is not a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".windtunnel-probe-*")
	if err != nil {
		return fmt.Errorf("run: --out %s: directory %s is not writable", path, dir)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// defaultSessionPath is ./runs/<time>-<task>-<model>.wtlab.
func defaultSessionPath(cfg runconfig.Config, now time.Time) string {
	return filepath.Join("runs", fmt.Sprintf("%s-%s-%s.wtlab", now.Format("20060102-150405"), cfg.Task, cfg.Model))
}

// runMeta describes a run for its session.
func runMeta(cfg runconfig.Config, tr *lab.Trainer, path string) (sessions.Meta, error) {
	cj, err := json.Marshal(cfg)
	if err != nil {
		return sessions.Meta{}, fmt.Errorf("run: config: %w", err)
	}
	host, _ := os.Hostname()
	m := tr.Model()
	layers, heads := m.Heads()
	if heads == 0 && cfg.Model == "transformer" {
		layers = cfg.Transformer.Layers
	}
	return sessions.Meta{
		Task: cfg.Task, Model: m.Kind(), Params: m.NumParams(), Layers: layers, Heads: heads, Steps: cfg.Steps,
		Device: tr.Device().Kind, DeviceName: tr.Device().Name, Driver: tr.Device().Driver, BLAS: tr.BLAS(),
		Version: version, Host: host, Created: time.Now().UTC().Truncate(time.Second), Config: cj, Path: path,
	}, nil
}

// resumeConfig reads the configuration and last checkpoint of a session to continue it
// (nil when it has none yet).
func resumeConfig(path string) (runconfig.Config, *sessions.Checkpoint, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return runconfig.Config{}, nil, fmt.Errorf("--resume: %w", err)
	}
	defer r.Close()
	cfg, err := derived.SessionConfig(r.Meta())
	if err != nil {
		return runconfig.Config{}, nil, fmt.Errorf("--resume: %w", err)
	}
	ck, ok, err := r.Checkpoint(-1)
	if err != nil {
		return runconfig.Config{}, nil, fmt.Errorf("--resume: %w", err)
	}
	if !ok {
		ck = nil
	}
	return cfg, ck, nil
}

// newTrainer builds the trainer, naming the flag when the device cannot be opened.
func newTrainer(cfg runconfig.Config) (*lab.Trainer, error) {
	tr, err := lab.New(cfg)
	var de *lab.DeviceError
	if errors.As(err, &de) {
		return nil, deviceError(de)
	}
	return tr, err
}
