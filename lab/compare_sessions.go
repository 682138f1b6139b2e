package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// SessionRun is a compared run read back from its session file.
type SessionRun struct {
	// Score is the run's final (whole-model) evaluation.
	Score RunScore
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
		return SessionRun{}, fmt.Errorf("lab: read %s: no configuration key", dr.Path)
	}
	out := SessionRun{Config: cfg, Done: dr.Done(cfg.Steps)}
	m := dr.Meta
	out.Score = RunScore{Task: cfg.Task, Model: m.Model, Seed: cfg.Seed, Params: m.Params, Session: dr.Path, Key: dr.Key}
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
	return out, fmt.Errorf("lab: read %s: no evaluation recorded", dr.Path)
}

// ReadSessionDir reads every session (*.wtlab) of a folder, in name order; sessions that
// cannot be read are returned as errors beside the runs that can.
func ReadSessionDir(dir string) ([]SessionRun, []error, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.wtlab"))
	if err != nil {
		return nil, nil, fmt.Errorf("lab: read %s: %w", dir, err)
	}
	if len(paths) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, nil, fmt.Errorf("lab: read sessions: %w", err) // names dir
		}
		return nil, nil, fmt.Errorf("lab: read %s: no sessions (*.wtlab) in it", dir)
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
