package lab

import (
	"context"
	"errors"
	"fmt"

	"windtunnel/sessions"
)

// ErrQueueFull is returned by Send when the trainer has not yet taken the events queued
// before.
var ErrQueueFull = errors.New("lab: the trainer's event queue is full")

// ErrAbandoned, as the cause of Run's context (context.WithCancelCause), ends the run
// without its final evaluation, snapshot and checkpoint; Run returns it. For runs whose
// session nobody keeps (bench --dashboard's): a run cancelled otherwise ends as a stop does.
var ErrAbandoned = errors.New("lab: run abandoned")

// Send queues an operator event (sessions.EventKind) for the trainer, which applies it
// before its next step and records that same event through its sinks, Step and WallS set
// to when it took effect. Head switches (EventHead, EventRestore) ablate heads in
// evaluations only (training always uses the whole model): after each switch, and at every
// evaluation while any head is off, the trainer also scores the ablated model and records
// it as an Eval whose Ablated lists the heads. Send never blocks; it fails when the queue is
// full (ErrQueueFull), the kind is unknown or the head is not in the model. It is safe
// for concurrent use and makes the Trainer a sessions.Control.
func (t *Trainer) Send(e sessions.Event) error {
	switch e.Kind {
	case sessions.EventPause, sessions.EventResume, sessions.EventStop, sessions.EventRestore:
	case sessions.EventHead:
		if e.Layer < 0 || e.Layer >= t.layers || e.Head < 0 || e.Head >= t.heads {
			return fmt.Errorf("lab: no head %d.%d in this model (%d layers × %d heads)", e.Layer, e.Head, t.layers, t.heads)
		}
	default:
		return fmt.Errorf("lab: unknown event %q", e.Kind)
	}
	select {
	case t.events <- e:
		return nil
	default:
		return ErrQueueFull
	}
}

var _ sessions.Control = (*Trainer)(nil)

// obey applies the queued events before a step, waiting while the run is paused. It
// returns a non-empty reason when the run must end now (a stop event, or ctx done), or
// ErrAbandoned when ctx was cancelled with that cause.
func (t *Trainer) obey(ctx context.Context, r *runState) (end string, err error) {
	for {
		var e sessions.Event
		select {
		case <-ctx.Done():
			return interrupted(ctx)
		case e = <-t.events:
		default:
			if !r.paused {
				return "", nil
			}
			select {
			case <-ctx.Done():
				return interrupted(ctx)
			case e = <-t.events:
			}
		}
		if end, err := t.apply(e, r); end != "" || err != nil {
			return end, err
		}
	}
}

// interrupted is obey's answer once ctx is done: the end "interrupted", or ErrAbandoned.
func interrupted(ctx context.Context) (end string, err error) {
	if errors.Is(context.Cause(ctx), ErrAbandoned) {
		return "", ErrAbandoned
	}
	return "interrupted", nil
}

// apply applies one event, records it, and emits what it changes: a paused record, or
// the evaluation of the model with the heads now switched off (the whole model when every
// head is back on).
func (t *Trainer) apply(e sessions.Event, r *runState) (end string, err error) {
	switch e.Kind {
	case sessions.EventPause:
		r.paused = true
	case sessions.EventResume:
		r.paused = false
	case sessions.EventHead:
		if e.Layer < 0 || e.Layer >= len(t.off) || e.Head < 0 || e.Head >= len(t.off[e.Layer]) {
			return "", nil // Send refuses it; nothing to record
		}
		t.off[e.Layer][e.Head] = !e.On
	case sessions.EventRestore:
		for _, row := range t.off {
			clear(row)
		}
	}
	e.Step, e.WallS = t.step, r.wall()
	t.record(e)
	switch e.Kind {
	case sessions.EventStop:
		return "stopped by operator", nil
	case sessions.EventPause:
		if r.state != sessions.Paused {
			r.state = sessions.Paused
			rec := r.res.Last
			rec.State, rec.Eval, rec.Snapshot = r.state, nil, nil
			t.emit(rec)
		}
	case sessions.EventHead, sessions.EventRestore:
		rec := r.res.Last
		rec.Eval, rec.Snapshot, rec.State = nil, nil, r.state
		if err := t.emitHeadsEval(rec); err != nil {
			return "", fmt.Errorf("lab: ablated evaluation at step %d: %w", t.step, err)
		}
	}
	return "", nil
}
