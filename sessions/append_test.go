package sessions

import (
	"path/filepath"
	"testing"
	"time"
)

// TestAppendSupersedesEnd checks that continuing a finished run turns its final record
// into a training record (evaluation kept, message saying it was resumed), so that the
// records read as one run, and that UpdateMeta records a new planned length.
func TestAppendSupersedesEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(Record{Step: 10, State: Training})
	w.Record(Record{Step: 10, State: Stopped, Message: "interrupted", Eval: &Eval{KLBits: 0.5}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w, _, err = Append(path, 10, WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.UpdateMeta(func(m *Meta) { m.Steps = 40 }); err != nil {
		t.Fatal(err)
	}
	w.Record(Record{Step: 11, State: Training})
	r := closeAndOpen(t, w, path)
	if r.Meta().Steps != 40 {
		t.Errorf("planned steps %d, want 40", r.Meta().Steps)
	}
	recs, err := r.Records(10, 10)
	if err != nil || len(recs) != 2 {
		t.Fatalf("records at step 10: %d, %v", len(recs), err)
	}
	if e := recs[1]; e.State != Training || e.Message != "interrupted; resumed" || e.Eval == nil || e.Eval.KLBits != 0.5 {
		t.Errorf("the continued run's end: state %s, message %q, eval %+v", e.State, e.Message, e.Eval)
	}
}
