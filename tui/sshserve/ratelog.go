package sshserve

import (
	"fmt"
	"log"
	"sync"
	"time"
)

// logEvery is how often rateLog prints a line of one kind; more in between are counted and
// summed up in one line at the end of the interval.
const logEvery = 5 * time.Second

// rateLog prints the lines that strangers can provoke (refused keys, connections closed
// before they log in, refused channels) at most once per interval (logEvery) for each
// kind, so that a flood of connections cannot flood the log too.
type rateLog struct {
	log   *log.Logger
	every time.Duration

	mu     sync.Mutex
	kinds  map[string]*rateKind
	closed bool
}

// rateKind is one kind of line: until when more are only counted, how many were, and the
// last of them.
type rateKind struct {
	until   time.Time
	dropped int
	last    string
	timer   *time.Timer
}

func newRateLog(l *log.Logger, every time.Duration) *rateLog {
	return &rateLog{log: l, every: every, kinds: map[string]*rateKind{}}
}

// printf logs a line of kind now, or counts it when one of that kind was logged less than
// the interval ago.
func (r *rateLog) printf(kind, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.kinds[kind]
	if k == nil {
		k = &rateKind{}
		r.kinds[kind] = k
	}
	if r.closed || now.After(k.until) {
		k.until = now.Add(r.every)
		r.log.Print(msg)
		return
	}
	k.dropped++
	k.last = msg
	if k.timer == nil {
		k.timer = time.AfterFunc(k.until.Sub(now), func() { r.flush(kind) })
	}
}

// flush logs how many lines of kind were counted since the last one, and the last of them.
func (r *rateLog) flush(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.kinds[kind]
	k.timer = nil
	if k.dropped == 0 {
		return
	}
	r.log.Printf("%s (%d more like it in the last %v)", k.last, k.dropped, r.every)
	k.dropped = 0
	k.until = time.Now().Add(r.every)
}

// close logs what is counted at once, and every later line as it comes.
func (r *rateLog) close() {
	r.mu.Lock()
	r.closed = true
	var pending []string
	for kind, k := range r.kinds {
		if k.timer != nil && k.timer.Stop() {
			k.timer = nil
			pending = append(pending, kind)
		}
	}
	r.mu.Unlock()
	for _, kind := range pending {
		r.flush(kind)
	}
}
