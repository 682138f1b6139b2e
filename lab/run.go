package lab

import (
	"context"
	"fmt"
	"math"
	"time"

	"windtunnel/backends/fpu"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// runState is what one Run keeps between steps.
type runState struct {
	batch  *tunnels.Batch
	next   *tunnels.Batch // the next step's batch, filled while a device computes this one
	nextAt int            // the step next holds (−1: none)
	stream uint64
	start  time.Time
	wall0  float64 // wall time spent before a resume
	res    Result
	paused bool
	state  sessions.State
	// rate is the smoothed steps per second, measured from lastT and lastStep.
	rate     float64
	lastT    time.Time
	lastStep int
	lastCkpt int // the step of the last checkpoint handed out (−1: none)
}

// wall is the run's wall time so far, including the time before a resume.
func (r *runState) wall() float64 { return r.wall0 + time.Since(r.start).Seconds() }

// Run trains until the step budget is spent, a stop event arrives or ctx is done, and
// returns the final evaluation (none when ctx is cancelled with the cause ErrAbandoned:
// then it returns that error at the next step). Every record, event and checkpoint goes to the sinks: a
// checkpoint every CheckpointEvery steps and at the end. When a sink can no longer record
// (sinkErr: a full disk, an I/O error) the run stops after the step at which it sees it,
// with an error naming the step and wrapping the sink's (which names the file).
func (t *Trainer) Run(ctx context.Context) (Result, error) {
	r := &runState{
		batch:  tunnels.NewBatch(t.tunnel, t.cfg.Batch),
		stream: tunnels.TrainStream(t.cfg.Seed),
		start:  time.Now(),
		wall0:  t.wall0,
		state:  sessions.Training,
	}
	r.lastT, r.lastStep, r.lastCkpt, r.nextAt = r.start, t.step, -1, -1
	r.res.Last = sessions.Record{Step: t.step, WallS: t.wall0, State: sessions.Training}
	for t.step < t.cfg.Steps {
		end, err := t.obey(ctx, r)
		if err != nil {
			return r.res, err
		}
		if end != "" {
			return t.finish(r, sessions.Stopped, end)
		}
		rec, err := t.trainStep(r)
		if err != nil {
			return r.res, err
		}
		ab, err := t.evalAtCadence(r, &rec)
		if err != nil {
			return r.res, err
		}
		r.res.Last = rec
		if rec.Eval != nil {
			r.res.LastEval = rec
		}
		t.emit(rec)
		if ab != nil {
			t.emit(*ab)
		}
		if ce := t.cfg.CheckpointEvery; ce > 0 && t.step%ce == 0 && t.step < t.cfg.Steps {
			t.saveCheckpoint(rec.WallS)
			r.lastCkpt = t.step
		}
		if err := t.sinkErr(); err != nil {
			return r.res, fmt.Errorf("lab: run stopped at step %d: it can no longer be recorded: %w", t.step, err)
		}
	}
	return t.finish(r, sessions.Done, "")
}

// sinkErr is the first write error of a sink that records to disk (one with an Err method:
// sessions.Writer, sessions.Live). Run checks it after every step and stops at the first:
// a run that goes on training unrecorded would be lost (a full disk, an I/O error).
func (t *Trainer) sinkErr() error {
	for _, s := range t.sinks {
		if f, ok := s.(interface{ Err() error }); ok {
			if err := f.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// trainStep draws the next batch, steps the model and the optimiser, and returns the
// step's record (without an evaluation). A non-finite loss emits a failed record and
// returns ErrDiverged.
func (t *Trainer) trainStep(r *runState) (sessions.Record, error) {
	if r.state == sessions.Paused {
		r.lastT, r.lastStep = time.Now(), t.step
	}
	r.state = sessions.Training
	// The step's arithmetic here (the optimiser) flushes subnormals to zero, as do the model's
	// float32 kernels and products, which set the mode themselves since gorgonia runs the
	// graph on a goroutine of its own: a trained model's gradients underflow, and each
	// subnormal costs ~100 cycles (backends/fpu).
	defer fpu.Restore(fpu.FlushSubnormals())
	t0 := time.Now()
	gmark := t.path.gpuTime()
	loss, err := t.stepOn(r)
	if err != nil {
		return sessions.Record{}, fmt.Errorf("lab: step %d: %w", t.step+1, err)
	}
	lr := t.sched.At(t.step)
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		// The failed record is the step whose loss was not finite (no update was applied):
		// its loss as computed, the learning rate it would have used and the reason.
		msg := fmt.Sprintf("loss is %v at step %d: training stopped (lower the learning rate?)", loss, t.step+1)
		rec := sessions.Record{Step: t.step + 1, WallS: r.wall(), Loss: loss, LR: lr, StepsPerS: r.rate, State: sessions.Failed, Message: msg}
		t.emit(rec)
		r.res.Last = rec
		r.res.Steps, r.res.WallS = t.step, rec.WallS
		return sessions.Record{}, fmt.Errorf("lab: %w: %s", ErrDiverged, msg)
	}
	gn, err := t.path.update(lr)
	if err != nil {
		return sessions.Record{}, fmt.Errorf("lab: step %d: %w", t.step+1, err)
	}
	t.step++
	now := time.Now()
	gpuDt := t.path.gpuTime() - gmark
	r.res.StepMs = append(r.res.StepMs, float64(now.Sub(t0).Microseconds())/1000)
	r.measureRate(now, t.step)
	rec := sessions.Record{Step: t.step, WallS: r.wall(), Loss: loss, LR: lr, GradNorm: gn, StepsPerS: r.rate, State: r.state}
	if t.path.usesGPU() {
		rec.GPUShare = gpuDt.Seconds() / math.Max(now.Sub(t0).Seconds(), 1e-9)
	}
	return rec, nil
}

// measureRate updates the smoothed steps per second at least half a second apart (the
// first estimate as soon as there is a step).
func (r *runState) measureRate(now time.Time, step int) {
	if dt := now.Sub(r.lastT).Seconds(); dt >= 0.5 {
		inst := float64(step-r.lastStep) / dt
		if r.rate == 0 {
			r.rate = inst
		} else {
			r.rate = 0.7*r.rate + 0.3*inst
		}
		r.lastT, r.lastStep = now, step
	} else if r.rate == 0 && step > r.lastStep {
		r.rate = float64(step-r.lastStep) / math.Max(now.Sub(r.start).Seconds(), 1e-9)
	}
}

// finish takes the final evaluation (with a geometry snapshot when one is due), emits the
// final record in the given state and hands out the last checkpoint.
func (t *Trainer) finish(r *runState, state sessions.State, msg string) (Result, error) {
	res := &r.res
	s, sn, err := t.evaluate(false, true)
	if err != nil {
		return *res, err
	}
	ev := EvalRecord(s)
	if err := t.withLengths(ev, s); err != nil { // the final evaluation always has them
		return *res, err
	}
	if t.geometryDue(t.step, true) {
		g0 := time.Now()
		if err := t.Geometry(sn, s, true); err != nil {
			return *res, err
		}
		res.GeometryS += time.Since(g0).Seconds()
	}
	res.Scores, res.Q, res.Steps = s, t.q, t.step
	res.WallS = r.wall()
	last := res.Last
	last.State, last.Message, last.Eval, last.Snapshot, last.WallS = state, msg, ev, sn, res.WallS
	res.Last, res.LastEval = last, last
	t.emit(last)
	if r.lastCkpt != t.step {
		t.saveCheckpoint(res.WallS)
	}
	return *res, nil
}
