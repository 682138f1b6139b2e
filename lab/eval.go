package lab

import (
	"fmt"
	"time"

	"windtunnel/diagnostics"
	"windtunnel/sessions"
)

// Evaluate scores the whole model (no head ablated) on the probe set.
func (t *Trainer) Evaluate() (diagnostics.Scores, error) {
	s, _, err := t.evaluate(false, false)
	return s, err
}

// evaluate scores the model on the probe set with the operator's ablations applied or not,
// and reads a snapshot of its attention entropy when snap is set.
func (t *Trainer) evaluate(ablated, snap bool) (diagnostics.Scores, *sessions.Snapshot, error) {
	if _, err := t.current(); err != nil {
		return diagnostics.Scores{}, nil, err
	}
	if ablated {
		if err := t.applyMask(true); err != nil {
			return diagnostics.Scores{}, nil, err
		}
		defer t.applyMask(false)
	}
	var acc [][]float64
	if snap && t.heads > 0 {
		acc = make([][]float64, t.layers)
		for l := range acc {
			acc[l] = make([]float64, t.heads)
		}
	}
	off := 0
	for _, b := range t.probe {
		n := b.N * b.P * b.C
		if err := t.model.Predict(t.tunnel, b, t.q[off:off+n]); err != nil {
			return diagnostics.Scores{}, nil, err
		}
		if acc != nil {
			if err := t.model.AttentionEntropy(t.tunnel, b, acc); err != nil {
				return diagnostics.Scores{}, nil, err
			}
		}
		off += n
	}
	s, err := diagnostics.Score(t.q, t.post, t.cfg.ProbeSize, len(t.tunnel.Positions()), t.tunnel.Classes())
	var sn *sessions.Snapshot
	if snap {
		sn = &sessions.Snapshot{}
		for l := range acc {
			for h := range acc[l] {
				acc[l][h] /= float64(t.cfg.ProbeSize)
			}
		}
		sn.AttentionEntropy = acc
	}
	return s, sn, err
}

// evalAtCadence adds the evaluation, and a geometry snapshot when one is due, to the
// record of a step on the evaluation cadence (except the last step: finish evaluates it),
// and returns the ablated evaluation to emit after it (nil when no head is off).
func (t *Trainer) evalAtCadence(r *runState, rec *sessions.Record) (*sessions.Record, error) {
	if t.step%t.cfg.EvalEvery != 0 || t.step >= t.cfg.Steps {
		return nil, nil
	}
	e0 := time.Now()
	s, sn, err := t.evaluate(false, true)
	if err != nil {
		return nil, fmt.Errorf("lab: evaluate at step %d: %w", t.step, err)
	}
	rec.Eval, rec.Snapshot = EvalRecord(s), sn
	if t.lengthsDue() {
		if err := t.withLengths(rec.Eval, s); err != nil {
			return nil, fmt.Errorf("lab: evaluate lengths at step %d: %w", t.step, err)
		}
	}
	r.res.EvalS += time.Since(e0).Seconds()
	if t.geometryDue(t.step, false) {
		g0 := time.Now()
		if err := t.Geometry(sn, s, true); err != nil {
			return nil, fmt.Errorf("lab: geometry at step %d: %w", t.step, err)
		}
		r.res.GeometryS += time.Since(g0).Seconds()
	}
	ab, err := t.ablatedRecord(*rec)
	if err != nil {
		return nil, fmt.Errorf("lab: ablated evaluation at step %d: %w", t.step, err)
	}
	return ab, nil
}

// emitHeadsEval emits, after a head switch, the evaluation of the model with the heads now
// off, or of the whole model when every head is back on; base is the record to extend.
func (t *Trainer) emitHeadsEval(base sessions.Record) error {
	ab, err := t.ablatedRecord(base)
	if err != nil {
		return err
	}
	if ab == nil { // every head back on: show the whole model again
		s, _, err := t.evaluate(false, false)
		if err != nil {
			return err
		}
		base.Eval = EvalRecord(s)
		ab = &base
	}
	t.emit(*ab)
	return nil
}

// ablatedHeads lists the heads the operator has switched off.
func (t *Trainer) ablatedHeads() []sessions.Head {
	var hs []sessions.Head
	for l, row := range t.off {
		for h, off := range row {
			if off {
				hs = append(hs, sessions.Head{Layer: l, Head: h})
			}
		}
	}
	return hs
}

// applyMask switches the operator's ablated heads off (on = true) or every head back on.
func (t *Trainer) applyMask(on bool) error {
	for l, row := range t.off {
		for h, off := range row {
			if err := t.model.SetHeadMask(l, h, !(on && off)); err != nil {
				return err
			}
		}
	}
	return nil
}

// ablatedRecord scores the ablated model and returns the record to emit (nil when no head
// is off).
func (t *Trainer) ablatedRecord(base sessions.Record) (*sessions.Record, error) {
	hs := t.ablatedHeads()
	if len(hs) == 0 {
		return nil, nil
	}
	s, _, err := t.evaluate(true, false)
	if err != nil {
		return nil, err
	}
	r := base
	r.Snapshot = nil
	r.Eval = EvalRecord(s)
	r.Eval.Ablated = hs
	return &r, nil
}

// EvalRecord is the recorded form of a probe-set evaluation (the shape a session, the run
// summary and probe all use).
func EvalRecord(s diagnostics.Scores) *sessions.Eval {
	return &sessions.Eval{
		BitErrorPosition: s.BitErrorPosition, BitErrorSample: s.BitErrorSample,
		KLBits: s.KLBits, TVD: s.TVD, Accuracy: s.Accuracy,
		ModelEntropy: append([]float64(nil), s.PerPosition.ModelEntropy...),
		BayesEntropy: append([]float64(nil), s.PerPosition.BayesEntropy...),
		KLByPosition: nums(s.PerPosition.KLBits), TVDByPosition: nums(s.PerPosition.TVD),
	}
}
