package lab

import (
	"fmt"

	"windtunnel/sessions"
)

// Sink receives everything a run produces, in order, on the trainer goroutine: the
// trainer's only outlet. Its methods must never block training (sessions.Writer and
// sessions.Live queue in memory; a progress line draws at most so often and returns).
// A sink that records to disk may also have an Err() error method (sessions.Writer and
// sessions.Live do): Run checks it after every step and stops at the first write error.
type Sink interface {
	Record(sessions.Record)
	Event(sessions.Event)
	Checkpoint(*sessions.Checkpoint)
}

// Attach adds a sink; call it before Run.
func (t *Trainer) Attach(s Sink) { t.sinks = append(t.sinks, s) }

// saveCheckpoint hands a copy of the parameters and optimiser state to the sinks.
func (t *Trainer) saveCheckpoint(wall float64) {
	if len(t.sinks) == 0 {
		return
	}
	if _, err := t.current(); err != nil {
		t.path.fail(err) // returned by the next step: no checkpoint from stale parameters
		return
	}
	c := t.checkpoint(wall, true)
	if c == nil {
		return
	}
	for _, s := range t.sinks {
		s.Checkpoint(c)
	}
}

// Step is the number of training steps done.
func (t *Trainer) Step() int { return t.step }

// checkpoint copies the parameters and, when withOpt, the optimiser state.
func (t *Trainer) checkpoint(wall float64, withOpt bool) *sessions.Checkpoint {
	c := &sessions.Checkpoint{Step: t.step, WallS: wall}
	for _, p := range t.model.Params() {
		ts := sessions.Tensor{Name: p.Name, Shape: append([]int(nil), p.Value.Shape()...)}
		switch d := p.Value.Data().(type) {
		case []float32:
			ts.F32 = append([]float32(nil), d...)
		case []float64:
			ts.F64 = append([]float64(nil), d...)
		}
		c.Params = append(c.Params, ts)
	}
	if !withOpt {
		return c
	}
	n, m, v, err := t.path.optState()
	if err != nil {
		t.path.fail(err)
		return nil
	}
	c.OptStep = n
	for i, p := range c.Params {
		mt := sessions.Tensor{Name: p.Name, Shape: p.Shape}
		vt := mt
		if m != nil {
			mt.F64 = append([]float64(nil), m[i]...)
			vt.F64 = append([]float64(nil), v[i]...)
		} else {
			mt.F64 = make([]float64, p.Len())
			vt.F64 = make([]float64, p.Len())
		}
		c.M = append(c.M, mt)
		c.V = append(c.V, vt)
	}
	return c
}

// LoadParams sets the model's parameters from a checkpoint (names, shapes and precision
// must match).
func (t *Trainer) LoadParams(c *sessions.Checkpoint) error {
	ps := t.model.Params()
	if len(c.Params) != len(ps) {
		return fmt.Errorf("lab: checkpoint at step %d has %d parameters, the model %d", c.Step, len(c.Params), len(ps))
	}
	for i, p := range ps {
		src := c.Params[i]
		if src.Name != p.Name || src.Len() != p.Value.Shape().TotalSize() {
			return fmt.Errorf("lab: checkpoint parameter %d is %s %v, the model's %s %v", i, src.Name, src.Shape, p.Name, p.Value.Shape())
		}
		switch d := p.Value.Data().(type) {
		case []float32:
			if src.F32 == nil {
				return fmt.Errorf("lab: checkpoint parameter %s is float64 and the model float32: run at the checkpoint's precision", p.Name)
			}
			copy(d, src.F32)
		case []float64:
			if src.F64 == nil {
				return fmt.Errorf("lab: checkpoint parameter %s is float32 and the model float64: run at the checkpoint's precision", p.Name)
			}
			copy(d, src.F64)
		}
	}
	return t.path.loaded(0, nil, nil, false)
}

// Restore continues from a checkpoint: parameters, optimiser state and the step (and so the
// schedule and the data stream). The checkpoint must carry optimiser state.
func (t *Trainer) Restore(c *sessions.Checkpoint) error {
	if c.M == nil {
		return fmt.Errorf("lab: checkpoint at step %d has no optimiser state (only the last checkpoint of a session has)", c.Step)
	}
	if c.Step > t.cfg.Steps {
		return fmt.Errorf("lab: checkpoint at step %d is past the run's %d steps", c.Step, t.cfg.Steps)
	}
	if err := t.LoadParams(c); err != nil {
		return err
	}
	m := make([][]float64, len(c.M))
	v := make([][]float64, len(c.V))
	for i := range c.M {
		m[i], v[i] = c.M[i].F64, c.V[i].F64
	}
	if err := t.opt.SetState(c.OptStep, m, v, t.model.Params()); err != nil {
		return err
	}
	if err := t.path.loaded(c.OptStep, m, v, true); err != nil {
		return fmt.Errorf("lab: resume on %s: %w", t.device.Kind, err)
	}
	t.step, t.wall0 = c.Step, c.WallS
	return nil
}
