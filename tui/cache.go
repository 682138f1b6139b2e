package tui

import (
	"errors"
	"math"
	"sort"
	"strings"
	"time"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// refresh re-reads the feed up to the current step and lets every pane do the same. What
// cannot have changed is not read again: the evaluations and snapshots come from caches
// that know which steps they cover, and the versions in sh change only with the data.
func (m *Model) refresh() {
	sh := m.sh
	now := time.Now()
	m.stats.Refreshes++
	m.stats.LastUpdate, m.lastRefresh = now, now
	sh.gen++
	sh.live = sh.feed.Live()
	sh.first, sh.last, sh.any = sh.feed.Span()
	if sh.follow || !sh.any {
		sh.step = sh.last
	} else {
		sh.step = min(max(sh.step, sh.first), sh.last)
	}
	var errs []error
	rec, ok, err := sh.feed.At(sh.step)
	errs = append(errs, err)
	sh.rec, sh.hasRec = rec, ok && err == nil && sh.any
	errs = append(errs, m.refreshEvals(), m.refreshSnapshots(), m.refreshScalars())
	for _, p := range m.panes {
		errs = append(errs, p.Refresh())
	}
	msg := ""
	if err := errors.Join(errs...); err != nil {
		msg = strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	if msg != m.feedErr && msg != "" {
		m.logger.Printf("tui: reading the feed: %s", msg)
	}
	m.feedErr = msg
}

// refreshEvals sets sh.evalsAll (the whole run's evaluations of the whole model, for the
// curves), sh.evals (those up to the current step) and sh.ablated for the current step,
// keeping the previous slices (and sh.evalKey) when they are the same.
func (m *Model) refreshEvals() error {
	sh := m.sh
	if !sh.any {
		sh.evals, sh.evalsAll, sh.ablated, sh.evalKey = nil, nil, nil, evalKey{}
		return nil
	}
	all, err := m.evalCache.upTo(sh.feed, sh.last, sh.last, !sh.replay)
	if err != nil {
		sh.evals, sh.evalsAll, sh.ablated, sh.evalKey = nil, nil, nil, evalKey{gen: -1}
		return err
	}
	n := sort.Search(len(all), func(i int) bool { return all[i].Step > sh.step })
	k := evalKey{m.evalCache.gen, n, len(all)}
	if k == sh.evalKey {
		return nil
	}
	sh.evalKey, sh.evals, sh.evalsAll, sh.ablated = k, nil, nil, nil
	for i := range all {
		switch {
		case all[i].Whole():
			sh.evalsAll = append(sh.evalsAll, all[i])
			if i < n {
				sh.evals = append(sh.evals, all[i])
			}
		case all[i].Eval != nil && i < n:
			sh.ablated = &all[i]
		}
	}
	return nil
}

// refreshSnapshots sets sh.snap (the newest snapshot at or before the step) and sh.prev
// (the one before it), bumping sh.snapGen when either changed.
func (m *Model) refreshSnapshots() error {
	sh := m.sh
	var snap, prev *sessions.Snapshot
	at, prevAt := 0, 0
	var errs []error
	if sh.any {
		var err error
		snap, at, err = m.snapCache.get(sh.feed, sh.step, sh.last, sh.replay)
		errs = append(errs, err)
		if snap != nil && at > 0 {
			prev, prevAt, err = m.snapCache.get(sh.feed, at-1, sh.last, sh.replay)
			errs = append(errs, err)
		}
	}
	if snap != sh.snap || at != sh.snapAt || prev != sh.prev || prevAt != sh.prevAt {
		sh.snapGen++
	}
	sh.snap, sh.snapAt, sh.prev, sh.prevAt = snap, at, prev, prevAt

	var geo, geoPrev *sessions.Snapshot
	geoAt, geoPrevAt := 0, 0
	if sh.any {
		var err error
		geo, geoAt, err = m.geometryAt(sh.step)
		errs = append(errs, err)
		if geo != nil && geoAt > 0 {
			geoPrev, geoPrevAt, err = m.geometryAt(geoAt - 1)
			errs = append(errs, err)
		}
	}
	if geo != sh.geo || geoAt != sh.geoAt || geoPrev != sh.geoPrev || geoPrevAt != sh.geoPrevAt {
		sh.geoGen++
	}
	sh.geo, sh.geoAt, sh.geoPrev, sh.geoPrevAt = geo, geoAt, geoPrev, geoPrevAt
	if geo != nil && geo.Simplex != nil && !sh.simplexOptDone {
		// The exact posterior's own simplex on the run's sequences: once, when the first
		// snapshot with a simplex arrives (its corner distance draws the claim's line).
		var err error
		sh.simplexOpt, err = derived.SimplexOptimum(sh.cfg, 0)
		sh.simplexOptDone = true
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// geoWalk is how many snapshots back the geometry lookup looks at most.
const geoWalk = 64

// geoCache remembers, like snapCache, which geometry snapshot answers for which steps.
type geoCache struct{ snapCache }

// lookup returns the cached answer for step, if any.
func (c *geoCache) lookup(step int) (snapEntry, bool) {
	for _, e := range c.entries {
		if e.at <= step && step <= e.hi {
			return e, true
		}
	}
	return snapEntry{}, false
}

// geometryAt returns the newest snapshot at or before step that carries geometry, walking
// back through the snapshots without it until one that has it or a step the cache already
// answers for; while following a run only the snapshots that arrived since are visited.
func (m *Model) geometryAt(step int) (*sessions.Snapshot, int, error) {
	sh, c := m.sh, &m.geoCache
	if e, ok := c.lookup(step); ok {
		return e.snap, max(e.at, 0), nil
	}
	found := snapEntry{at: noSnap}
	s := step
	for range geoWalk {
		sn, at, err := m.snapCache.get(sh.feed, s, sh.last, sh.replay)
		if err != nil {
			return nil, 0, err
		}
		if sn == nil {
			break
		}
		if hasGeometry(sn) {
			found = snapEntry{at: at, snap: sn}
			break
		}
		if e, ok := c.lookup(at); ok {
			found = e
			break
		}
		if at <= 0 {
			break
		}
		s = at - 1
	}
	found.hi, found.final = step, sh.last
	for i, e := range c.entries {
		if e.at == found.at && e.snap == found.snap {
			c.entries = append(c.entries[:i:i], c.entries[i+1:]...)
			found.hi = max(found.hi, e.hi)
			break
		}
	}
	c.entries = append([]snapEntry{found}, c.entries...)
	if len(c.entries) > snapCacheSize {
		c.entries = c.entries[:snapCacheSize]
	}
	return found.snap, max(found.at, 0), nil
}

// evalCache keeps the evaluations read up to a step, so that scrubbing and following a
// live run read only what may have changed.
type evalCache struct {
	valid bool
	gen   int  // bumped whenever recs change
	step  int  // recs hold every evaluation with Step ≤ step, as of the query
	final int  // evaluations at steps below final cannot change any more (the feed's last step then)
	stale bool // the feed changed since the query
	recs  []sessions.Record
}

// upTo returns the evaluations with Step ≤ step. It answers from the cache when the cache
// covers step; when following a live feed (probe) it first asks for the newest evaluation
// only and extends the cache when that is the one it already has.
func (c *evalCache) upTo(f sessions.Feed, step, last int, probe bool) ([]sessions.Record, error) {
	covered := c.valid && step <= c.step && (!c.stale || step < c.final)
	if !covered && c.valid && probe && step >= c.step {
		newest, err := f.Evals(step, 1)
		if err != nil {
			*c = evalCache{gen: c.gen + 1}
			return nil, err
		}
		n := len(c.recs)
		same := len(newest) == 0 && n == 0 ||
			len(newest) == 1 && n > 0 && newest[0].Step == c.recs[n-1].Step && newest[0].Eval == c.recs[n-1].Eval
		if same {
			c.step, c.final, c.stale, covered = step, last, false, true
		}
	}
	if !covered {
		recs, err := f.Evals(step, 0)
		if err != nil {
			*c = evalCache{gen: c.gen + 1}
			return nil, err
		}
		*c = evalCache{valid: true, gen: c.gen + 1, step: step, final: last, recs: recs}
	}
	n := sort.Search(len(c.recs), func(i int) bool { return c.recs[i].Step > step })
	return c.recs[:n:n], nil
}

// snapCache keeps the last few snapshots read and, for each, the steps it is known to be
// the newest snapshot of, so that scrubbing within them and following a live run without
// new snapshots read (and decode) nothing.
type snapCache struct {
	entries []snapEntry // most recent first
}

// snapEntry is one snapshot (nil: none) and the steps [at, hi] it answers for; final is
// the feed's last step when hi was confirmed.
type snapEntry struct {
	at, hi, final int
	snap          *sessions.Snapshot
}

// noSnap is the at of an entry recording that there is no snapshot up to its hi.
const noSnap = math.MinInt

// snapCacheSize is how many snapshots the cache keeps.
const snapCacheSize = 8

// changed notes that the feed changed: a new snapshot may have arrived at the last step
// any entry was confirmed at, so the entries no longer answer for it.
func (c *snapCache) changed() {
	for i := range c.entries {
		e := &c.entries[i]
		e.hi = min(e.hi, e.final-1)
	}
}

// get returns the newest snapshot at or before step and its step. A snapshot read again
// at the same step keeps the object already held when the feed is a replay (which decodes
// anew on every read), so the panes' caches stay valid.
func (c *snapCache) get(f sessions.Feed, step, last int, replay bool) (*sessions.Snapshot, int, error) {
	for _, e := range c.entries {
		if e.at <= step && step <= e.hi {
			if e.snap == nil {
				return nil, 0, nil
			}
			return e.snap, e.at, nil
		}
	}
	snap, at, err := f.Snapshot(step)
	if err != nil {
		return nil, 0, err
	}
	if snap == nil {
		at = noSnap
	}
	for i, e := range c.entries {
		if e.at == at && (e.snap == snap || replay) {
			e.hi, e.final = max(e.hi, step), last
			if e.hi < e.at { // clipped by changed: confirmed again from at
				e.hi = step
			}
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e.snap, max(e.at, 0), nil
		}
	}
	c.entries = append([]snapEntry{{at: at, hi: step, final: last, snap: snap}}, c.entries...)
	if len(c.entries) > snapCacheSize {
		c.entries = c.entries[:snapCacheSize]
	}
	return snap, max(at, 0), nil
}
