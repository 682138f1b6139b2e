package sessiontest

import (
	"encoding/json"
	"fmt"
	"math"

	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// Meta describes a run of cfg as its session's meta does (launch.Meta without a trainer:
// no parameter count, device or host).
func Meta(cfg runconfig.Config) (sessions.Meta, error) {
	cj, err := json.Marshal(cfg)
	if err != nil {
		return sessions.Meta{}, fmt.Errorf("sessiontest: config: %w", err)
	}
	layers, heads := 0, 0
	if cfg.Model == "transformer" {
		layers, heads = cfg.Transformer.Layers, cfg.Transformer.Heads
	}
	return sessions.Meta{Task: cfg.Task, Model: cfg.Model, Layers: layers, Heads: heads, Steps: cfg.Steps, Config: cj}, nil
}

// Finished is the records of a run of cfg that went to its end: one a step, an evaluation
// at every EvalEvery-th step and at the last, then a done record at the last step. The
// scores fall with the step and depend on the seed only, so two runs of one configuration
// and seed record the same numbers.
func Finished(cfg runconfig.Config) []sessions.Record {
	recs := make([]sessions.Record, 0, cfg.Steps+1)
	for s := 1; s <= cfg.Steps; s++ {
		r := sessions.Record{Step: s, WallS: 0.01 * float64(s), Loss: 1 + 1/float64(s), LR: cfg.LR, StepsPerS: 100, State: sessions.Training}
		if (cfg.EvalEvery > 0 && s%cfg.EvalEvery == 0) || s == cfg.Steps {
			a := 0.5/math.Sqrt(float64(s)) + 0.001*float64(cfg.Seed)
			r.Eval = &sessions.Eval{BitErrorPosition: a, BitErrorSample: 1.25 * a, KLBits: 0.6 * a, TVD: 0.15 * a, Accuracy: 1 - a/4}
		}
		recs = append(recs, r)
	}
	done := recs[len(recs)-1]
	done.Eval, done.State, done.Message = nil, sessions.Done, fmt.Sprintf("%d steps", cfg.Steps)
	return append(recs, done)
}

// Write records meta and recs into a new session at path.
func Write(path string, meta sessions.Meta, recs []sessions.Record) error {
	w, err := sessions.Create(path, meta, sessions.WriterOptions{})
	if err != nil {
		return fmt.Errorf("sessiontest: %w", err)
	}
	for _, r := range recs {
		w.Record(r)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("sessiontest: write %s: %w", path, err)
	}
	return nil
}

// WriteFinished writes the session of a run of cfg that went to its end (Meta, Finished)
// at path.
func WriteFinished(path string, cfg runconfig.Config) error {
	m, err := Meta(cfg)
	if err != nil {
		return err
	}
	return Write(path, m, Finished(cfg))
}
