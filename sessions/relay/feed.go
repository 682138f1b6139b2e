package relay

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"windtunnel/sessions"
)

// SendTimeout bounds how long Feed.Send waits for the trainer's answer.
const SendTimeout = 5 * time.Second

// Feed is a sessions.Feed over a live run reached through its control socket: the history
// from the session file, what follows from the socket. Records and events with Step ≤ its
// bound come from the file (the writer committed them all before the feed opened, or, for
// a resumed run's first step, does so within its commit interval), those after it from the
// socket, so the two never overlap nor leave a gap. Live is true while the socket is up and
// the run takes commands; Send forwards events through the socket. When the run ends (or
// the socket drops) Changed is closed and the feed reads like a replay.
type Feed struct {
	cl    *Client
	file  *sessions.Reader
	meta  sessions.Meta
	bound int

	mu      sync.Mutex
	recs    []sessions.Record
	evals   []int // indices into recs of records with an Eval
	snaps   []int // indices into recs of records with a Snapshot
	events  []sessions.Event
	changed chan struct{}
	ended   bool
	closed  bool
}

// OpenFeed connects to the run whose control socket is at socket, opens its session file
// (named in the hello) and subscribes to what follows the file's history.
func OpenFeed(ctx context.Context, socket string) (*Feed, error) {
	cl, err := Dial(ctx, socket)
	if err != nil {
		return nil, err
	}
	f, err := NewFeed(cl)
	if err != nil {
		cl.Close()
		return nil, err
	}
	return f, nil
}

// NewFeed builds a Feed on a connected client that has not subscribed yet; the feed owns
// the client from now on (Close hangs up).
func NewFeed(cl *Client) (*Feed, error) {
	h := cl.Hello()
	if h.Meta.Path == "" {
		return nil, fmt.Errorf("relay: %s: the run records no session", cl.path)
	}
	r, err := sessions.Open(h.Meta.Path)
	if err != nil {
		return nil, fmt.Errorf("relay: attach %s: %w", cl.path, err)
	}
	// Everything with a step before the file's newest is in the file (the writer commits
	// in order); what the live run holds is everything after its Base.
	bound := h.Base
	if _, hi, ok := r.Span(); ok && hi-1 > bound {
		bound = hi - 1
	}
	f := &Feed{cl: cl, file: r, meta: h.Meta, bound: bound, changed: make(chan struct{}, 1)}
	if err := cl.Subscribe(bound, f.take); err != nil {
		r.Close()
		return nil, err
	}
	go func() {
		<-cl.Done()
		f.end()
	}()
	return f, nil
}

// Bound is the step up to which the feed reads the session file.
func (f *Feed) Bound() int { return f.bound }

// take stores one streamed message (on the client's goroutine).
func (f *Feed) take(m Message) {
	switch m.Type {
	case TypeRecord:
		f.mu.Lock()
		f.recs = append(f.recs, *m.Record)
		if m.Record.Eval != nil {
			f.evals = append(f.evals, len(f.recs)-1)
		}
		if m.Record.Snapshot != nil {
			f.snaps = append(f.snaps, len(f.recs)-1)
		}
		f.mu.Unlock()
		f.notify()
	case TypeEvent:
		f.mu.Lock()
		f.events = append(f.events, *m.Event)
		f.mu.Unlock()
		f.notify()
	case TypeEnd:
		f.end()
	}
}

func (f *Feed) notify() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended {
		return
	}
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// end marks the run over: Live turns false and Changed is closed.
func (f *Feed) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.ended {
		f.ended = true
		close(f.changed)
	}
}

// Close hangs up and closes the session file.
func (f *Feed) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	f.mu.Unlock()
	f.cl.Close()
	f.end()
	if err := f.file.Close(); err != nil {
		return fmt.Errorf("relay: close feed: %w", err)
	}
	return nil
}

// Meta describes the run (Path is the session file, Socket the control socket).
func (f *Feed) Meta() sessions.Meta { return f.meta }

// Live reports whether the socket is up and the run takes commands.
func (f *Feed) Live() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.ended && f.cl.Hello().Live
}

// Changed is signalled when records or events arrive and closed when the run ends.
func (f *Feed) Changed() <-chan struct{} { return f.changed }

// fileUpTo is the step to read the file up to for a query up to step (step < 0: all), and
// whether the file has anything to read.
func (f *Feed) fileUpTo(step int) (int, bool) {
	if f.bound < 0 {
		return 0, false
	}
	if step < 0 || step > f.bound {
		return f.bound, true
	}
	return step, true
}

// upper is how many streamed records have Step ≤ step (all for step < 0); f.mu is held.
func (f *Feed) upper(step int) int {
	if step < 0 {
		return len(f.recs)
	}
	return sort.Search(len(f.recs), func(i int) bool { return f.recs[i].Step > step })
}

// Span returns the first and last recorded steps.
func (f *Feed) Span() (int, int, bool) {
	lo, hi, ok := 0, 0, false
	if _, ok2 := f.fileUpTo(-1); ok2 {
		if flo, _, fok := f.file.Span(); fok && flo <= f.bound {
			if last, err := f.file.Scalars(f.bound, 1); err == nil && len(last) > 0 {
				lo, hi, ok = flo, last[len(last)-1].Step, true
			}
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.recs); n > 0 {
		if !ok {
			lo, ok = f.recs[0].Step, true
		}
		hi = f.recs[n-1].Step
	}
	return lo, hi, ok
}

// At returns the newest record with Step ≤ step (step < 0: the newest).
func (f *Feed) At(step int) (sessions.Record, bool, error) {
	f.mu.Lock()
	if n := f.upper(step); n > 0 {
		r := f.recs[n-1]
		f.mu.Unlock()
		return r, true, nil
	}
	f.mu.Unlock()
	up, ok := f.fileUpTo(step)
	if !ok {
		return sessions.Record{}, false, nil
	}
	return f.file.At(up)
}

// merge thins the file's records followed by the streamed ones (indices idx into f.recs,
// snapshots dropped) to at most max.
func (f *Feed) merge(file []sessions.Record, idx []int, max int) []sessions.Record {
	f.mu.Lock()
	mem := make([]sessions.Record, 0, len(idx))
	for _, i := range sessions.Thin(len(idx), max) {
		r := f.recs[idx[i]]
		r.Snapshot = nil
		mem = append(mem, r)
	}
	f.mu.Unlock()
	all := append(file, mem...)
	if max <= 0 || len(all) <= max {
		return all
	}
	out := make([]sessions.Record, 0, max)
	for _, i := range sessions.Thin(len(all), max) {
		out = append(out, all[i])
	}
	return out
}

// Scalars returns records with Step ≤ upTo (all for upTo < 0), thinned to at most max,
// without snapshots.
func (f *Feed) Scalars(upTo, max int) ([]sessions.Record, error) {
	var file []sessions.Record
	if up, ok := f.fileUpTo(upTo); ok {
		var err error
		if file, err = f.file.Scalars(up, max); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	idx := make([]int, f.upper(upTo))
	for i := range idx {
		idx[i] = i
	}
	f.mu.Unlock()
	return f.merge(file, idx, max), nil
}

// Evals is Scalars restricted to records that carry an Eval.
func (f *Feed) Evals(upTo, max int) ([]sessions.Record, error) {
	var file []sessions.Record
	if up, ok := f.fileUpTo(upTo); ok {
		var err error
		if file, err = f.file.Evals(up, max); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	n := f.upper(upTo)
	idx := f.evals[:sort.SearchInts(f.evals, n)]
	f.mu.Unlock()
	return f.merge(file, idx, max), nil
}

// Snapshot returns the newest snapshot at a step ≤ step (step < 0: the newest) and its step.
func (f *Feed) Snapshot(step int) (*sessions.Snapshot, int, error) {
	f.mu.Lock()
	n := f.upper(step)
	if m := sort.SearchInts(f.snaps, n); m > 0 {
		r := f.recs[f.snaps[m-1]]
		f.mu.Unlock()
		return r.Snapshot, r.Step, nil
	}
	f.mu.Unlock()
	up, ok := f.fileUpTo(step)
	if !ok {
		return nil, 0, nil
	}
	return f.file.Snapshot(up)
}

// Events returns the operator events with Step ≤ upTo (all for upTo < 0), in order.
func (f *Feed) Events(upTo int) ([]sessions.Event, error) {
	var out []sessions.Event
	if up, ok := f.fileUpTo(upTo); ok {
		var err error
		if out, err = f.file.Events(up); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.events {
		if upTo >= 0 && e.Step > upTo {
			break
		}
		out = append(out, e)
	}
	return out, nil
}

// Send forwards an operator event to the trainer through the socket; once the run has
// ended it returns sessions.ErrReadOnly.
func (f *Feed) Send(e sessions.Event) error {
	if !f.Live() {
		return sessions.ErrReadOnly
	}
	ctx, cancel := context.WithTimeout(context.Background(), SendTimeout)
	defer cancel()
	return f.cl.Send(ctx, e)
}

var _ sessions.Feed = (*Feed)(nil)
