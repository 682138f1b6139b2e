package sessions

import "sort"

// Subscribe returns a channel signalled (capacity 1, never blocking the producer) whenever a
// record or event arrives, like Changed but one per subscriber, so that several readers
// (the dashboard, socket clients) can each wait for news; it is closed when the run ends
// (at once when it already has). cancel unsubscribes; it is safe to call more than once.
// A subscriber reads what arrived with Since: it never misses anything, however slow.
func (l *Live) Subscribe() (ch <-chan struct{}, cancel func()) {
	c := make(chan struct{}, 1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		close(c)
		return c, func() {}
	}
	if l.subs == nil {
		l.subs = map[chan struct{}]struct{}{}
	}
	l.subs[c] = struct{}{}
	return c, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.subs, c)
	}
}

// Index returns how many records and how many events have Step ≤ step (none for a
// negative step): the positions from which Since returns what came after step.
func (l *Live) Index(step int) (records, events int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	records = sort.Search(len(l.recs), func(i int) bool { return l.recs[i].Step > step })
	events = sort.Search(len(l.events), func(i int) bool { return l.events[i].Step > step })
	return records, events
}

// Since returns the records from position records on and the events from position events
// on, in the order they arrived (snapshots included and shared: do not modify them), and
// whether the run has ended, in which case nothing will follow them. Positions past the end
// return nothing.
func (l *Live) Since(records, events int) ([]Record, []Event, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var rs []Record
	var es []Event
	if n := len(l.recs); records >= 0 && records < n {
		rs = l.recs[records:n:n]
	}
	if n := len(l.events); events >= 0 && events < n {
		es = l.events[events:n:n]
	}
	return rs, es, l.closed
}
