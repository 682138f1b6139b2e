package derived

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// SessionConfig decodes the configuration a session stores (Meta.Config) for probing,
// resuming or comparing it (runconfig.Decode: every size checked before anything is built
// from it). A configuration that does not decode or names a size out of range is an error
// naming the session and wrapping sessions.ErrNotSession (and the *arch.FieldError).
func SessionConfig(m sessions.Meta) (runconfig.Config, error) {
	c, err := runconfig.Decode(m.Config)
	if err != nil {
		return runconfig.Config{}, fmt.Errorf("runconfig: %s: config: %w: %w", m.Path, sessions.ErrNotSession, err)
	}
	return c, nil
}

// ReadSessionConfig opens the session at path and decodes its configuration
// (SessionConfig); it returns the session's meta too.
func ReadSessionConfig(path string) (runconfig.Config, sessions.Meta, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return runconfig.Config{}, sessions.Meta{}, err
	}
	m := r.Meta()
	r.Close()
	c, err := SessionConfig(m)
	return c, m, err
}

// ReadLike reads the configuration a recorded run stored as the source run --like starts
// from (runconfig.Like).
func ReadLike(path string) (*runconfig.Source, error) {
	cfg, _, err := ReadSessionConfig(path)
	if err != nil {
		return nil, err
	}
	return runconfig.Like(path, cfg), nil
}

// KeyOf is a configuration's key under the rule of this package (ConfigKey of its JSON, as a
// session stores it): runs with equal keys are seeds of one configuration.
func KeyOf(c runconfig.Config) (string, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("derived: config key: %w", err)
	}
	return ConfigKey(b)
}

// SessionRun is a compared run read back from its session file.
type SessionRun struct {
	// Score is the run's final (whole-model) evaluation.
	Score RunScore
	// Config is the run's configuration.
	Config runconfig.Config
	// Done reports whether the run reached its planned steps and ended cleanly.
	Done bool
	// State is the last record's state.
	State sessions.State
	// Labels are the run's (Run.Labels).
	Labels sessions.Labels
}

// ReadSessionRun reads the configuration and the last whole-model evaluation of a session
// (ReadRun, then SessionRunOf).
func ReadSessionRun(path string) (SessionRun, error) {
	dr, err := ReadRun(path)
	if err != nil {
		return SessionRun{}, err
	}
	return SessionRunOf(dr)
}

// SessionRunOf is a run read by ReadRun as the architecture table scores it: its
// configuration, state and last whole-model evaluation (an error when it has none).
func SessionRunOf(dr *Run) (SessionRun, error) {
	cfg, err := SessionConfig(dr.Meta)
	if err != nil {
		return SessionRun{}, err
	}
	if dr.Key == "" {
		return SessionRun{}, fmt.Errorf("derived: read %s: no configuration key", dr.Path)
	}
	out := SessionRun{Config: cfg, Done: dr.Done(cfg.Steps), Labels: dr.Labels}
	m := dr.Meta
	out.Score = RunScore{Task: cfg.Task, Model: m.Model, Seed: cfg.Seed, Params: m.Params, Session: dr.Path, Key: dr.Key}
	if dr.HasLast {
		out.State = dr.Last.State
		out.Score.Steps, out.Score.WallS = dr.Last.Step, ActiveWall(dr.Last.WallS, dr.Pauses)
	}
	if r, ok := dr.LastEval(); ok {
		e := r.Eval
		out.Score.Scores = diagnostics.Scores{BitErrorPosition: e.BitErrorPosition, BitErrorSample: e.BitErrorSample,
			KLBits: e.KLBits, TVD: e.TVD, Accuracy: e.Accuracy}
		return out, nil
	}
	return out, fmt.Errorf("derived: read %s: no evaluation recorded", dr.Path)
}

// ReadSessionDir reads every session of a folder (sessions.Find: its own files, not its
// sub-folders'), in name order; sessions that cannot be read are returned as errors beside
// the runs that can, and unfinished runs with the others (Gather sets them apart).
func ReadSessionDir(dir string) ([]SessionRun, []error, error) {
	if err := sessions.CheckFolder(dir); err != nil {
		return nil, nil, err // names dir and what it is
	}
	found, err := sessions.Find([]string{dir}, sessions.FindOptions{})
	if err != nil {
		return nil, nil, err // names dir
	}
	var runs []SessionRun
	var errs []error
	for _, f := range found {
		sr, err := ReadSessionRun(f.Path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		runs = append(runs, sr)
	}
	return runs, errs, nil
}

// WriteSessionConfig writes the configuration stored in the session at path as a file
// `windtunnel run --config` reads back to the same configuration (runconfig.Write: TOML, or
// YAML for format "yaml"), under a comment naming the session's task, model and steps.
// Nothing is written when the session cannot be read.
func WriteSessionConfig(w io.Writer, path, format string) error {
	cfg, m, err := ReadSessionConfig(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The configuration of %s (%s %s, %d steps), as recorded.\n",
		strings.ReplaceAll(sessions.SafeText(path), "\n", " "), sessions.SafeText(m.Task), sessions.SafeText(m.Model), cfg.Steps)
	b.WriteString("# `windtunnel run --config FILE` runs it again; flags given replace its values. A zero size\n" +
		"# or an empty setting stands for the default (`windtunnel info` shows the values the run used).\n")
	if err := runconfig.Write(&b, cfg, format); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, err = w.Write(b.Bytes())
	return err
}
