package sessions

import (
	"errors"
	"sort"
	"sync"
)

// ErrReadOnly is returned by Feed.Send when the feed is a saved session.
var ErrReadOnly = errors.New("sessions: a replayed session takes no commands")

// Feed is what the TUI reads: a live run or a saved session, through one interface.
//
// Every method is safe for concurrent use. Steps are training steps; several records may
// share a step (a pause, an ablated evaluation, the final record).
type Feed interface {
	// Meta describes the run.
	Meta() Meta
	// Live reports whether the run is in progress in this process and takes commands.
	Live() bool
	// Changed is signalled (capacity 1, never blocking the producer) when records or events
	// arrive; it is closed when nothing more will arrive.
	Changed() <-chan struct{}
	// Span returns the first and last steps recorded so far and whether there are any.
	Span() (first, last int, ok bool)
	// At returns the newest record with Step ≤ step (the newest of all for step < 0).
	At(step int) (Record, bool, error)
	// Scalars returns records with Step ≤ upTo (all for upTo < 0), thinned evenly to at most
	// max (keeping the last), without their snapshots, in order.
	Scalars(upTo, max int) ([]Record, error)
	// Evals is Scalars restricted to records that carry an Eval.
	Evals(upTo, max int) ([]Record, error)
	// Snapshot returns the newest snapshot at a step ≤ step (step < 0: the newest).
	Snapshot(step int) (*Snapshot, int, error)
	// Events returns the operator events with Step ≤ upTo (all for upTo < 0), in order.
	Events(upTo int) ([]Event, error)
	// Send asks a live run for an action; a replay returns ErrReadOnly.
	Send(Event) error
}

// Thin keeps at most max of n items evenly spaced, always keeping the last; it returns the
// kept indices. max ≤ 0 keeps everything.
func Thin(n, max int) []int {
	if n <= 0 {
		return nil
	}
	if max <= 0 || n <= max {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, 0, max)
	if max == 1 {
		return append(idx, n-1)
	}
	for k := 0; k < max; k++ {
		idx = append(idx, int(int64(k)*int64(n-1)/int64(max-1)))
	}
	return idx
}

// Control is what obeys operator events: a running trainer. It applies the event between
// steps and records that same event (with the step it took effect at) through its sinks.
type Control interface {
	// Send queues an event for the run; it fails when the event cannot be queued.
	Send(Event) error
}

// Live is an in-memory Feed fed by a running trainer: it keeps every record and event,
// forwards them to an optional Writer, and hands operator events to the trainer. Adding
// never blocks (a mutex-protected append and a non-blocking notify).
type Live struct {
	meta   Meta
	ctl    Control
	writer *Writer

	mu      sync.Mutex
	recs    []Record
	evals   []int // indices into recs of records with an Eval
	snaps   []int // indices into recs of records with a Snapshot
	events  []Event
	changed chan struct{}
	closed  bool
	subs    map[chan struct{}]struct{} // Subscribe's channels, signalled like changed
}

// NewLive returns a live feed for a run described by meta. ctl receives the operator's
// events (nil: they are refused with ErrReadOnly); w, if not nil, receives everything.
func NewLive(meta Meta, ctl Control, w *Writer) *Live {
	return &Live{meta: meta, ctl: ctl, writer: w, changed: make(chan struct{}, 1)}
}

// notify signals Changed and every subscriber without blocking; l.mu is held.
func (l *Live) notify() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
	for ch := range l.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Record adds one record (called by the trainer; never blocks on disk).
func (l *Live) Record(r Record) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.recs = append(l.recs, r)
	if r.Eval != nil {
		l.evals = append(l.evals, len(l.recs)-1)
	}
	if r.Snapshot != nil {
		l.snaps = append(l.snaps, len(l.recs)-1)
	}
	l.notify()
	l.mu.Unlock()
	if l.writer != nil {
		l.writer.Record(r)
	}
}

// Event adds one operator event as it took effect in the trainer.
func (l *Live) Event(e Event) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.events = append(l.events, e)
	l.notify()
	l.mu.Unlock()
	if l.writer != nil {
		l.writer.Event(e)
	}
}

// Checkpoint forwards a checkpoint to the writer.
func (l *Live) Checkpoint(c *Checkpoint) {
	if l.writer != nil {
		l.writer.Checkpoint(c)
	}
}

// End marks the run finished: Live turns false and Changed is closed.
func (l *Live) End() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.changed)
		for ch := range l.subs {
			close(ch)
		}
		l.subs = nil
	}
}

// Err returns the session writer's first write error (nil without a writer); a trainer
// checks it after every step and stops a run that can no longer be recorded.
func (l *Live) Err() error {
	if l.writer == nil {
		return nil
	}
	return l.writer.Err()
}

// Meta describes the run.
func (l *Live) Meta() Meta { return l.meta }

// Live reports whether the run still takes commands.
func (l *Live) Live() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.closed && l.ctl != nil
}

// Changed is signalled when records or events arrive and closed at the end of the run.
func (l *Live) Changed() <-chan struct{} { return l.changed }

// Span returns the first and last recorded steps.
func (l *Live) Span() (int, int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.recs) == 0 {
		return 0, 0, false
	}
	return l.recs[0].Step, l.recs[len(l.recs)-1].Step, true
}

// upper returns how many records have Step ≤ step (all for step < 0); l.mu is held.
func (l *Live) upper(step int) int {
	if step < 0 {
		return len(l.recs)
	}
	return sort.Search(len(l.recs), func(i int) bool { return l.recs[i].Step > step })
}

// At returns the newest record with Step ≤ step.
func (l *Live) At(step int) (Record, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.upper(step)
	if n == 0 {
		return Record{}, false, nil
	}
	return l.recs[n-1], true, nil
}

// Scalars returns thinned records up to a step, without snapshots.
func (l *Live) Scalars(upTo, max int) ([]Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.upper(upTo)
	out := make([]Record, 0, min(n, max))
	for _, i := range Thin(n, max) {
		r := l.recs[i]
		r.Snapshot = nil
		out = append(out, r)
	}
	return out, nil
}

// Evals returns thinned evaluation records up to a step, without snapshots.
func (l *Live) Evals(upTo, max int) ([]Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.upper(upTo)
	m := sort.SearchInts(l.evals, n)
	out := make([]Record, 0, min(m, max))
	for _, i := range Thin(m, max) {
		r := l.recs[l.evals[i]]
		r.Snapshot = nil
		out = append(out, r)
	}
	return out, nil
}

// Snapshot returns the newest snapshot at or before a step and its step.
func (l *Live) Snapshot(step int) (*Snapshot, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.upper(step)
	m := sort.SearchInts(l.snaps, n)
	if m == 0 {
		return nil, 0, nil
	}
	r := l.recs[l.snaps[m-1]]
	return r.Snapshot, r.Step, nil
}

// Events returns the events up to a step.
func (l *Live) Events(upTo int) ([]Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.events)
	if upTo >= 0 {
		n = sort.Search(len(l.events), func(i int) bool { return l.events[i].Step > upTo })
	}
	return append([]Event(nil), l.events[:n]...), nil
}

// Send hands an operator event to the trainer.
func (l *Live) Send(e Event) error {
	if !l.Live() {
		return ErrReadOnly
	}
	return l.ctl.Send(e)
}

// ControlFunc adapts a function to Control.
type ControlFunc func(Event) error

// Send calls f.
func (f ControlFunc) Send(e Event) error { return f(e) }
