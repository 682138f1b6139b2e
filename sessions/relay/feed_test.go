package relay

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"windtunnel/sessions"
)

// openFeed opens a Feed on the socket at path.
func openFeed(t *testing.T, path string) *Feed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	f, err := OpenFeed(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// waitClosed waits for the feed's Changed to be closed.
func waitClosed(t *testing.T, f *Feed) {
	t.Helper()
	deadline := time.After(testTimeout)
	for {
		select {
		case _, ok := <-f.Changed():
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the feed did not end")
		}
	}
}

// checkSteps checks that the feed's records have exactly the steps want, in order.
func checkSteps(t *testing.T, f *Feed, want []int) {
	t.Helper()
	recs, err := f.Scalars(-1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		if r.Step != want[i] {
			t.Fatalf("record %d at step %d, want %d (a gap or a duplicate)", i, r.Step, want[i])
		}
	}
}

func steps(from, to int) []int {
	var s []int
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

// TestFeedMergesFileAndSocket: the attach feed reads the committed history from the file and
// the rest from the socket, with a step split across the boundary (two records at step 50,
// one committed), without gaps or duplicates; events from both; Send reaches the Control;
// at the end it reads like a replay.
func TestFeedMergesFileAndSocket(t *testing.T) {
	session := filepath.Join(t.TempDir(), "run.wtlab")
	w, err := sessions.Create(session, sessions.Meta{Task: "bijection"}, sessions.WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	run := newFakeRun(t, w)
	_, path := serve(t, run, ServerOptions{Session: session})
	run.emit(1, 50)
	run.live.Event(sessions.Event{Step: 25, Kind: sessions.EventPause})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	// A second record at step 50 (an ablated evaluation), not yet committed.
	run.live.Record(sessions.Record{Step: 50, State: sessions.Training, Eval: &sessions.Eval{BitErrorPosition: 0.9, Ablated: []sessions.Head{{Layer: 0, Head: 1}}}})

	feed := openFeed(t, path)
	if feed.Bound() != 49 {
		t.Errorf("bound %d, want 49 (the file's newest step is 50)", feed.Bound())
	}
	if !feed.Live() {
		t.Error("feed not live while the run is")
	}
	if err := feed.Send(sessions.Event{Kind: sessions.EventHead, Layer: 0, Head: 1}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-run.got:
	case <-time.After(testTimeout):
		t.Fatal("the control received nothing")
	}
	run.emit(51, 100)
	w.Flush()
	run.live.End()
	waitClosed(t, feed)

	checkSteps(t, feed, append(append(steps(1, 50), 50), steps(51, 100)...))
	evs, err := feed.Events(-1)
	if err != nil || len(evs) != 2 || evs[0].Kind != sessions.EventPause || evs[1].Kind != sessions.EventHead || evs[1].Step != 50 {
		t.Errorf("events %+v, %v", evs, err)
	}
	if lo, hi, ok := feed.Span(); !ok || lo != 1 || hi != 100 {
		t.Errorf("span %d..%d %v", lo, hi, ok)
	}
	if r, ok, _ := feed.At(50); !ok || r.Eval == nil || len(r.Eval.Ablated) != 1 {
		t.Errorf("At(50) = %+v, want the ablated evaluation", r)
	}
	if r, ok, _ := feed.At(30); !ok || r.Step != 30 {
		t.Errorf("At(30) = step %d", r.Step)
	}
	for step, want := range map[int]int{45: 40, 70: 60, -1: 100, 10: 0} {
		sn, at, err := feed.Snapshot(step)
		if err != nil || at != want || (want > 0) != (sn != nil) {
			t.Errorf("Snapshot(%d) at %d (%v), want %d", step, at, err, want)
		}
	}
	ev, err := feed.Evals(-1, 0)
	if err != nil || len(ev) != 11 { // 10 whole-model evaluations and the ablated one
		t.Errorf("%d evaluations (%v), want 11", len(ev), err)
	}
	if thin, _ := feed.Scalars(-1, 7); len(thin) != 7 || thin[6].Step != 100 {
		t.Errorf("thinned to %d records ending at %d", len(thin), thin[len(thin)-1].Step)
	}
	if feed.Live() {
		t.Error("feed live after the run ended")
	}
	if err := feed.Send(sessions.Event{Kind: sessions.EventPause}); err != sessions.ErrReadOnly {
		t.Errorf("send after the end: %v", err)
	}
}

// TestFeedResumed: a resumed run's feed reads what came before the resumption from the
// file and the rest from the socket, though nothing after it was committed yet.
func TestFeedResumed(t *testing.T) {
	session := filepath.Join(t.TempDir(), "run.wtlab")
	w, err := sessions.Create(session, sessions.Meta{Task: "bijection"}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := newFakeRun(t, w)
	first.emit(1, 40)
	first.live.Event(sessions.Event{Step: 30, Kind: sessions.EventPause})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w, _, err = sessions.Append(session, 30, sessions.WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	run := newFakeRun(t, w)
	_, path := serve(t, run, ServerOptions{Session: session, Resumed: 30})
	run.emit(31, 35)
	feed := openFeed(t, path)
	if feed.Bound() != 30 {
		t.Errorf("bound %d, want 30", feed.Bound())
	}
	run.emit(36, 60)
	run.live.End()
	waitClosed(t, feed)
	checkSteps(t, feed, steps(1, 60))
	if evs, _ := feed.Events(-1); len(evs) != 1 || evs[0].Step != 30 {
		t.Errorf("events %+v", evs)
	}
}
