package runconfig

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"windtunnel/models/arch"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tunnels"
)

// SessionConfig decodes the configuration a session stores (Meta.Config) for probing,
// resuming or comparing it. A session file is untrusted: every size the configuration
// gives (the model's, the tunnel's, batch, probe set, lengths, steps) is checked here,
// before any model is built from it, and a configuration that does not decode or names a
// size out of range is an error wrapping sessions.ErrNotSession and the *arch.FieldError. The
// settings that size nothing (cadences, learning rates) are left to Validate, which New
// runs after the caller's changes (a resumed run's --steps, a probe's geometry size).
func SessionConfig(m sessions.Meta) (Config, error) {
	var c Config
	if err := json.Unmarshal(m.Config, &c); err != nil {
		return Config{}, fmt.Errorf("runconfig: %s: config: %w: %v", m.Path, sessions.ErrNotSession, err)
	}
	if err := c.validateSizes(); err != nil {
		return Config{}, fmt.Errorf("runconfig: %s: config: %w: %w", m.Path, sessions.ErrNotSession, err)
	}
	return c, nil
}

// validateSizes is the part of Validate that bounds what a run allocates.
func (c Config) validateSizes() error {
	bad := func(field string, v any, want string) error {
		return &arch.FieldError{Field: field, Value: v, Reason: "want " + want}
	}
	switch {
	case c.Steps < 1 || c.Steps > maxSteps:
		return bad("Steps", c.Steps, "1..100000000")
	case c.Batch < 1 || c.Batch > maxBatch:
		return bad("Batch", c.Batch, "1..65536")
	case c.ProbeSize < 1 || c.ProbeSize > maxProbe:
		return bad("ProbeSize", c.ProbeSize, "1..1048576")
	case c.GeometryN < 0 || c.GeometryN > maxGeometryN:
		return bad("GeometryN", c.GeometryN, "0..4096")
	case c.Workers < 0 || c.Workers > maxWorkers:
		return bad("Workers", c.Workers, "0..1024")
	}
	if _, err := tunnels.New(c.Task, c.Tunnel); err != nil {
		return bad("Tunnel", c.Tunnel, err.Error())
	}
	if err := c.validateEvalK(); err != nil {
		return err
	}
	return c.Spec().Validate()
}

// SessionRun is a compared run read back from its session file.
type SessionRun struct {
	// Score is the run's final (whole-model) evaluation.
	Score derived.RunScore
	// Config is the run's configuration.
	Config Config
	// Done reports whether the run reached its planned steps and ended cleanly.
	Done bool
	// State is the last record's state.
	State sessions.State
}

// ReadSessionRun reads the configuration and the last whole-model evaluation of a session
// (derived.ReadRun, then SessionRunOf).
func ReadSessionRun(path string) (SessionRun, error) {
	dr, err := derived.ReadRun(path)
	if err != nil {
		return SessionRun{}, err
	}
	return SessionRunOf(dr)
}

// SessionRunOf is a run read by derived.ReadRun as the architecture table scores it: its
// configuration, state and last whole-model evaluation (an error when it has none).
func SessionRunOf(dr *derived.Run) (SessionRun, error) {
	cfg, err := SessionConfig(dr.Meta)
	if err != nil {
		return SessionRun{}, err
	}
	if dr.Key == "" {
		return SessionRun{}, fmt.Errorf("runconfig: read %s: no configuration key", dr.Path)
	}
	out := SessionRun{Config: cfg, Done: dr.Done(cfg.Steps)}
	m := dr.Meta
	out.Score = derived.RunScore{Task: cfg.Task, Model: m.Model, Seed: cfg.Seed, Params: m.Params, Session: dr.Path, Key: dr.Key}
	if dr.HasLast {
		out.State = dr.Last.State
		out.Score.Steps, out.Score.WallS = dr.Last.Step, dr.Last.WallS
	}
	if r, ok := dr.LastEval(); ok {
		e := r.Eval
		out.Score.Scores = diagnostics.Scores{BitErrorPosition: e.BitErrorPosition, BitErrorSample: e.BitErrorSample,
			KLBits: e.KLBits, TVD: e.TVD, Accuracy: e.Accuracy}
		return out, nil
	}
	return out, fmt.Errorf("runconfig: read %s: no evaluation recorded", dr.Path)
}

// ReadSessionDir reads every session (*.wtlab) of a folder, in name order; sessions that
// cannot be read are returned as errors beside the runs that can.
func ReadSessionDir(dir string) ([]SessionRun, []error, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.wtlab"))
	if err != nil {
		return nil, nil, fmt.Errorf("runconfig: read %s: %w", dir, err)
	}
	if len(paths) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, nil, fmt.Errorf("runconfig: read sessions: %w", err) // names dir
		}
		return nil, nil, fmt.Errorf("runconfig: read %s: no sessions (*.wtlab) in it", dir)
	}
	sort.Strings(paths)
	var runs []SessionRun
	var errs []error
	for _, p := range paths {
		sr, err := ReadSessionRun(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		runs = append(runs, sr)
	}
	return runs, errs, nil
}
