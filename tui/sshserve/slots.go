package sshserve

import (
	"fmt"
	"sync"
	"time"
)

// slots counts what keys hold of something bounded per key and in all (sessions, session
// channels), and how many of those are closing (the server is done with them, the client
// may not be yet); guarded by Server.mu.
type slots struct {
	what                string
	perKey, closing     map[string]int
	total, closingTotal int
	maxPerKey, max      int
	freed               chan struct{} // closed (and replaced) when one is given back
}

func newSlots(what string, maxPerKey, max int) slots {
	return slots{what: what, perKey: map[string]int{}, closing: map[string]int{}, maxPerKey: maxPerKey, max: max,
		freed: make(chan struct{})}
}

// slot is one of a slots held by a key.
type slot struct {
	s       *Server
	sl      *slots
	fp      string
	once    sync.Once
	closing bool // guarded by s.mu
}

// acquire takes one of sl for a key, or says why there is none.
func (s *Server) acquire(sl *slots, fp string) (release func(), err error) {
	h, err, _ := s.tryAcquire(sl, fp)
	if err != nil {
		return nil, err
	}
	return h.release, nil
}

// acquireWithin is acquire waiting up to wait (or until done) for one of the key's slots
// that are closing to be given back: a client that ends a session and opens the next at
// once may be quicker than the server hearing of the end. With none closing it does not
// wait.
func (s *Server) acquireWithin(sl *slots, fp string, wait time.Duration, done <-chan struct{}) (*slot, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		h, err, freed := s.tryAcquire(sl, fp)
		if err == nil || freed == nil {
			return h, err
		}
		select {
		case <-freed:
		case <-t.C:
			return nil, err
		case <-done:
			return nil, err
		}
	}
}

// tryAcquire is acquire, and when there is none but some that keep it out are closing,
// what is closed when one is given back (nil when none is closing).
func (s *Server) tryAcquire(sl *slots, fp string) (*slot, error, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	var freed <-chan struct{}
	switch {
	case sl.perKey[fp] >= sl.maxPerKey:
		err = fmt.Errorf("this key already has %d %s open (the most allowed)", sl.perKey[fp], sl.what)
		if sl.closing[fp] > 0 {
			freed = sl.freed
		}
	case sl.total >= sl.max:
		err = fmt.Errorf("the server has %d %s open (the most allowed)", sl.total, sl.what)
		if sl.closingTotal > 0 {
			freed = sl.freed
		}
	}
	if err != nil {
		return nil, err, freed
	}
	sl.perKey[fp]++
	sl.total++
	return &slot{s: s, sl: sl, fp: fp}, nil, nil
}

// markClosing notes that the server is done with the slot.
func (h *slot) markClosing() {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if h.closing {
		return
	}
	h.closing = true
	h.sl.closing[h.fp]++
	h.sl.closingTotal++
}

// release gives the slot back, once.
func (h *slot) release() {
	h.once.Do(func() {
		s, sl := h.s, h.sl
		s.mu.Lock()
		defer s.mu.Unlock()
		if h.closing {
			sl.closingTotal--
			if sl.closing[h.fp]--; sl.closing[h.fp] <= 0 {
				delete(sl.closing, h.fp)
			}
		}
		sl.total--
		if sl.perKey[h.fp]--; sl.perKey[h.fp] <= 0 {
			delete(sl.perKey, h.fp)
		}
		close(sl.freed)
		sl.freed = make(chan struct{})
	})
}
