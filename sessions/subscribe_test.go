package sessions

import (
	"path/filepath"
	"testing"
)

// TestLiveSubscribe: every subscriber is signalled without blocking the producer, reads
// what arrived with Since from Index, and sees its channel closed at the end.
func TestLiveSubscribe(t *testing.T) {
	l := NewLive(Meta{}, nil, nil)
	a, cancelA := l.Subscribe()
	b, cancelB := l.Subscribe()
	defer cancelB()
	for s := 1; s <= 100; s++ { // nobody reads meanwhile: Record must not block
		l.Record(Record{Step: s})
	}
	l.Event(Event{Step: 50, Kind: EventPause})
	for _, ch := range []<-chan struct{}{a, b} {
		select {
		case <-ch:
		default:
			t.Fatal("a subscriber was not signalled")
		}
	}
	cancelA()
	cancelA()
	ri, ei := l.Index(49)
	recs, evs, ended := l.Since(ri, ei)
	if len(recs) != 51 || recs[0].Step != 50 || len(evs) != 1 || ended {
		t.Fatalf("Since(Index(49)): %d records from %d, %d events, ended %v", len(recs), recs[0].Step, len(evs), ended)
	}
	if ri, ei := l.Index(-1); ri != 0 || ei != 0 {
		t.Errorf("Index(-1) = %d, %d", ri, ei)
	}
	if recs, evs, _ := l.Since(500, 500); recs != nil || evs != nil {
		t.Error("Since past the end returned something")
	}
	l.End()
	if _, ok := <-b; ok {
		<-b // the signal from before may still be pending
	}
	if _, ok := <-b; ok {
		t.Error("subscriber channel open after End")
	}
	if _, _, ended := l.Since(0, 0); !ended {
		t.Error("Since does not report the end")
	}
	c, _ := l.Subscribe()
	if _, ok := <-c; ok {
		t.Error("a subscription after End is open")
	}
}

// TestUpdateMeta: a writer's meta changes in the file at once; Path is never stored.
func TestUpdateMeta(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	w, err := Create(path, Meta{Task: "hmm", Steps: 10}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.UpdateMeta(func(m *Meta) { m.Socket, m.Path = "/run/x.sock", "/elsewhere" }); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Meta(); m.Socket != "/run/x.sock" || m.Task != "hmm" || m.Steps != 10 || m.Path != path {
		t.Errorf("meta %+v", m)
	}
	r.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.UpdateMeta(func(*Meta) {}); err == nil {
		t.Error("UpdateMeta after Close succeeded")
	}
}
