package lab

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"windtunnel/sessions"
)

// failingSink is a collector whose Err reports a write error once a step is recorded, as
// a session writer does when its commit fails (set from another goroutine there).
type failingSink struct {
	collector
	failAt int
	err    atomic.Pointer[error]
}

func (f *failingSink) Record(r sessions.Record) {
	f.collector.Record(r)
	if r.Step == f.failAt {
		go func() {
			err := errors.New("sessions: write /x/run.wtlab: database or disk is full (13)")
			f.err.Store(&err)
		}()
	}
}

func (f *failingSink) Err() error {
	if p := f.err.Load(); p != nil {
		return *p
	}
	return nil
}

// TestRecordingFailureStops: once a sink reports a write error, Run stops within a few
// steps (it does not train on unrecorded) and returns an error naming the step and wrapping
// the sink's, which names the file and the cause; no final evaluation or checkpoint follows.
func TestRecordingFailureStops(t *testing.T) {
	c := tiny("transformer")
	c.Steps = 100000
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	sink := &failingSink{failAt: 30}
	tr.Attach(sink)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := tr.Run(ctx)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("Run = %v (ctx %v), want a recording error", err, ctx.Err())
	}
	if !strings.Contains(err.Error(), "it can no longer be recorded: sessions: write /x/run.wtlab: database or disk is full") {
		t.Errorf("error %q does not name the file and the cause", err)
	}
	last := sink.records[len(sink.records)-1]
	if last.Step < 30 || last.Step > 30+50 || tr.Step() != last.Step {
		t.Errorf("trained to step %d, last record %d, after a failure at step 30", tr.Step(), last.Step)
	}
	if len(sink.checkpoints) != 0 || res.Steps != 0 {
		t.Errorf("%d checkpoints, result steps %d after the failure", len(sink.checkpoints), res.Steps)
	}
}
