package lab

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"windtunnel/sessions"
)

// TestLiveFeedControlsTrainer wires a trainer as the Control of a live feed that is also its
// sink, as the dashboard does: a head event sent through the feed while the trainer runs is
// recorded as sent (with the step and time it took effect) and the ablated evaluation
// follows it.
func TestLiveFeedControlsTrainer(t *testing.T) {
	c := tiny("transformer")
	c.Steps, c.EvalEvery = 100000, 50
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	live := sessions.NewLive(sessions.Meta{Task: c.Task, Model: c.Model}, tr, nil)
	tr.Attach(live)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type out struct {
		res Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		r, err := tr.Run(ctx)
		live.End()
		done <- out{r, err}
	}()
	// wait polls the feed until cond holds.
	wait := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case <-live.Changed():
			case <-ctx.Done():
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	wait("three steps", func() bool { _, last, ok := live.Span(); return ok && last >= 3 })
	head := sessions.Event{Kind: sessions.EventHead, Layer: 1, Head: 0, On: false}
	if err := live.Send(head); err != nil {
		t.Fatal(err)
	}
	var ablated sessions.Record
	wait("the ablated evaluation", func() bool {
		evals, _ := live.Evals(-1, 0)
		i := slices.IndexFunc(evals, func(r sessions.Record) bool { return len(r.Eval.Ablated) > 0 })
		if i >= 0 {
			ablated = evals[i]
		}
		return i >= 0
	})
	if err := live.Send(sessions.Event{Kind: sessions.EventStop}); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.res.Last.State != sessions.Stopped {
		t.Errorf("final state %q, want stopped", o.res.Last.State)
	}
	if err := live.Send(head); err == nil {
		t.Error("the feed took an event after the run ended")
	}
	events, _ := live.Events(-1)
	if len(events) != 2 || events[1].Kind != sessions.EventStop {
		t.Fatalf("recorded events %+v, want the head switch and the stop", events)
	}
	got := events[0]
	if got.Step < 3 || !(got.WallS > 0) {
		t.Errorf("head event took effect at step %d, %g s", got.Step, got.WallS)
	}
	if ablated.Step != got.Step || !slices.Equal(ablated.Eval.Ablated, []sessions.Head{{Layer: 1, Head: 0}}) {
		t.Errorf("ablated evaluation at step %d of %v, want at step %d of L1 H0", ablated.Step, ablated.Eval.Ablated, got.Step)
	}
	if math.IsNaN(ablated.Eval.BitErrorPosition) {
		t.Error("ablated evaluation has no bit error")
	}
	got.Step, got.WallS = head.Step, head.WallS
	if got != head {
		t.Errorf("recorded %+v, sent %+v", got, head)
	}
	// The trainer refuses what it cannot obey, at once.
	for _, e := range []sessions.Event{{Kind: "rewind"}, {Kind: sessions.EventHead, Layer: 2}, {Kind: sessions.EventHead, Head: -1}} {
		if err := tr.Send(e); err == nil {
			t.Errorf("Send(%+v) accepted", e)
		}
	}
}

// TestCancelledRun: a run whose context is cancelled at step 5 ends as a stop does (a
// final evaluation, a snapshot when probes are on, a last checkpoint); cancelled with the
// cause ErrAbandoned, it returns that error with none of them.
func TestCancelledRun(t *testing.T) {
	for _, c := range []struct {
		name  string
		cause error
	}{{"cancelled", nil}, {"abandoned", ErrAbandoned}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := tiny("transformer")
			cfg.Steps, cfg.ProbeEvery, cfg.GeometryN, cfg.CheckpointEvery = 100000, 1000, 16, 0
			tr, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			sink := &collector{onRecord: func(r sessions.Record) {
				if r.Step == 5 {
					cancel(c.cause)
				}
			}}
			tr.Attach(sink)
			res, err := tr.Run(ctx)
			last := sink.records[len(sink.records)-1]
			if c.cause != nil {
				if !errors.Is(err, ErrAbandoned) || last.Eval != nil || last.Snapshot != nil || len(sink.checkpoints) != 0 || res.Steps != 0 {
					t.Errorf("abandoned: err %v, last record %+v, %d checkpoints: want ErrAbandoned and nothing final", err, last, len(sink.checkpoints))
				}
				return
			}
			if err != nil || last.State != sessions.Stopped || last.Message != "interrupted" || last.Eval == nil || last.Snapshot == nil ||
				len(sink.checkpoints) != 1 || res.Steps < 5 || res.Steps > 6 {
				t.Errorf("cancelled: err %v, %d steps, last record %+v, %d checkpoints: want a stop at step 5 or 6 with its evaluation, snapshot and checkpoint",
					err, res.Steps, last, len(sink.checkpoints))
			}
		})
	}
}
