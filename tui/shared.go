package tui

import (
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"

	"windtunnel/tui/look"
)

// shared is the context every pane reads: the feed, the styles and key table, the current
// step and what the root fetched for it. The root owns it; panes only read it.
type shared struct {
	feed   sessions.Feed
	meta   sessions.Meta
	cfg    runconfig.Config // the session's configuration (the dashboard reads its cadence)
	keys   KeyMap
	st     look.Styles
	replay bool // the feed was not live when the dashboard opened
	// readOnly: the viewer may only watch (Options.ReadOnly); keys holds the acting keys disabled.
	readOnly bool

	live   bool   // the feed takes commands now
	ended  bool   // Changed was closed: nothing more will arrive
	follow bool   // the view tracks the newest step
	focus  string // title of the focused pane
	step   int    // the current step: every query is made up to it
	first  int
	last   int
	any    bool // the feed has at least one record

	// scalars are the records' scalars of the whole run (refreshScalars), not cut at step,
	// thinned (more densely when zoomed); scalarTo the step they were read up to, scalarN
	// how many were asked for and scalarGen their version. pauses are the run's paused
	// intervals, read with them (derived.Pauses).
	scalars   []sessions.Record
	scalarTo  int
	scalarN   int
	scalarGen int
	pauses    []derived.Pause
	// zoom is the step range the charts over steps show (z, Z, the mouse wheel: curves.go).
	zoom stepZoom
	// sys is what the System pane sampled of the run's process, and its history; ncpu the
	// machine's CPU cores it is measured against (0: runtime.NumCPU; a test fixes it).
	sys  sysState
	ncpu int

	rec    sessions.Record // newest record at or before step
	hasRec bool
	evals  []sessions.Record // evaluations of the whole model up to step, oldest first
	// evalsAll are the evaluations of the whole model over the whole run (the curves).
	evalsAll []sessions.Record
	ablated  *sessions.Record // newest evaluation with ablated heads up to step

	snap   *sessions.Snapshot // newest snapshot at or before step (nil: none yet)
	snapAt int
	prev   *sessions.Snapshot // the snapshot before snap (nil: none)
	prevAt int

	// geo is the newest snapshot at or before step that carries the geometry probe's
	// readouts (key orthogonality, manifold, frame, ablation table): the lab takes those at
	// its own cadence, so most evaluation snapshots have attention entropy only. geoPrev is
	// the geometry snapshot before it.
	geo       *sessions.Snapshot
	geoAt     int
	geoPrev   *sessions.Snapshot
	geoPrevAt int
	// simplexOpt is the exact posterior's own belief simplex on the run's geometry sequences
	// (derived.SimplexOptimum), computed once at the first snapshot with a simplex.
	simplexOpt     *sessions.Simplex
	simplexOptDone bool

	// Versions of what the root fetched, for the panes' render caches: gen counts refreshes,
	// evalKey changes only when evals or ablated do, snapGen only when snap or prev do, and
	// epoch drops every cached view at once.
	gen     int
	evalKey evalKey
	snapGen int
	geoGen  int
	epoch   int
	renders int // views rendered afresh (cache misses), for Stats
}

// noGeometry is what the geometry panes say before the first geometry snapshot.
const noGeometry = "no geometry snapshot yet (the lab takes one every --probe-every steps)"

// hasGeometry reports whether a snapshot carries the geometry probe's readouts.
func hasGeometry(s *sessions.Snapshot) bool {
	return s != nil && (s.KeyOrthogonality != nil || s.Manifold != nil || s.Frame != nil || len(s.Ablation) > 0 ||
		s.QKAlignment != nil || s.AttentionMass != nil || s.Simplex != nil)
}

// evalKey identifies the evaluations the root handed to the panes: the generation of the
// evaluation cache and how many of its records are up to the current step, and in all.
type evalKey struct{ gen, n, all int }

// viewCache keeps a pane's rendered view until the inputs it was drawn from change.
type viewCache struct {
	key   any // a comparable value of the inputs
	epoch int
	s     string
	ok    bool
}

// get returns the cached view when k (and the epoch) match, else draws and keeps it.
func (c *viewCache) get(sh *shared, k any, draw func() string) string {
	if c.ok && c.epoch == sh.epoch && c.key == k {
		return c.s
	}
	sh.renders++
	c.key, c.epoch, c.s, c.ok = k, sh.epoch, draw(), true
	return c.s
}

// lastEval is the newest evaluation of the whole model up to the current step.
func (s *shared) lastEval() *sessions.Record {
	if len(s.evals) == 0 {
		return nil
	}
	return &s.evals[len(s.evals)-1]
}

// canAct reports whether this viewer can act on the run now: it is live (not a replay), has
// not ended, and the viewer may do more than watch. Where it cannot, the keys that act on
// the run are disabled (KeyMap.watchOnly), so that no hint or help offers them.
func (s *shared) canAct() bool { return !s.readOnly && !s.replay && !s.ended }

// watchOnly disables the keys that act on the run, once it cannot be acted on, and drops
// every cached view that may show them.
func (s *shared) watchOnly() {
	s.keys = s.keys.watchOnly()
	s.epoch++
}

// actNote is the status line's answer to a key that acts on the run where the viewer cannot.
func (s *shared) actNote() string {
	switch {
	case s.replay:
		return "replay: read-only (a recorded run: nothing to pause, stop or switch)"
	case s.ended:
		return "run ended: read-only"
	}
	return readOnlyNote
}

// hasAttention reports whether the model has attention heads at all.
func (s *shared) hasAttention() bool { return s.meta.Heads > 0 && s.meta.Layers > 0 }
