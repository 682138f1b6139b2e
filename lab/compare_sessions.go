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

// ReadSessionRun reads the configuration and the last whole-model evaluation of a session.
func ReadSessionRun(path string) (SessionRun, error) {
	r, err := sessions.Open(path)
	if err != nil {
		return SessionRun{}, err
	}
	defer r.Close()
	cfg, err := SessionConfig(r.Meta())
	if err != nil {
		return SessionRun{}, err
	}
	out := SessionRun{Config: cfg}
	last, ok, err := r.At(-1)
	if err != nil {
		return SessionRun{}, err
	}
	if ok {
		out.State = last.State
		out.Done = last.State == sessions.Done && last.Step >= cfg.Steps
	}
	evs, err := r.Evals(-1, 0)
	if err != nil {
		return SessionRun{}, err
	}
	m := r.Meta()
	key, err := derived.Key(m)
	if err != nil {
		return SessionRun{}, fmt.Errorf("lab: read %s: %w", path, err)
	}
	out.Score = RunScore{Task: cfg.Task, Model: m.Model, Seed: cfg.Seed, Params: m.Params, Session: path, Key: key}
	if ok {
		out.Score.Steps, out.Score.WallS = last.Step, last.WallS
	}
	if r, ok := sessions.LastWhole(evs); ok {
		e := r.Eval
		out.Score.Scores = diagnostics.Scores{BitErrorPosition: e.BitErrorPosition, BitErrorSample: e.BitErrorSample,
			KLBits: e.KLBits, TVD: e.TVD, Accuracy: e.Accuracy}
		return out, nil
	}
	return out, fmt.Errorf("lab: read %s: no evaluation recorded", path)
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
