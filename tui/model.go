package tui

import (
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
)

// Default terminal size until the first WindowSizeMsg (none arrives without a TTY).
const (
	defaultWidth  = 80
	defaultHeight = 24
	gridWidth     = 160 // at this size and above a page of four panes shows at once
	gridHeight    = 48
)

// Stats counts the dashboard's work so its redraw rate can be measured.
type Stats struct {
	// Frames is the number of screens rendered (each View returns the latest one).
	Frames int
	// Refreshes is the number of times the panes re-queried the feed.
	Refreshes int
	// LastUpdate is when the feed was last re-queried.
	LastUpdate time.Time
	// Keys is the number of key presses handled; KeyTime their total and KeyMax the longest
	// time from receiving a key to having the new screen ready.
	Keys    int
	KeyTime time.Duration
	KeyMax  time.Duration
	// Renders counts the views drawn afresh (pane, box, header, scrubber and footer cache
	// misses); a frame whose inputs did not change draws nothing.
	Renders int
}

// Model is the root bubbletea model: it owns the panes, the scrubber, the focus and the
// layout, and paces the re-reading of the feed.
type Model struct {
	sh     *shared
	logger *log.Logger
	panes  []pane
	scrub  *scrubber
	help   help.Model

	focus         int
	page          int // the grid page (pane group) shown
	showHelp      bool
	width, height int
	frame         string
	status        string
	feedErr       string

	evalCache evalCache // every evaluation up to some step
	snapCache snapCache // the snapshots read lately and the steps they are known to cover
	geoCache  geoCache  // the geometry snapshots found lately and the steps they answer for
	views     *rootViews

	closed      bool // Changed was closed
	dirty       bool // the feed changed since the last refresh
	lastRefresh time.Time
	stats       Stats
	logAt       time.Time
	logFrames   int
}

// New returns the dashboard on feed, already showing its newest step at 80×24 until the
// terminal reports its size.
func New(feed sessions.Feed, opts Options) Model {
	logger := opts.Logger
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	sh := &shared{feed: feed, meta: feed.Meta(), keys: defaultKeys(), st: newStyles(), replay: !feed.Live(), follow: true}
	m := Model{
		sh:     sh,
		logger: logger,
		panes: []pane{newRunPane(sh), newBitErrorPane(sh), newAttentionPane(sh), newAblationPane(sh),
			newKeysPane(sh), newManifoldPane(sh), newFramePane(sh)},
		scrub:  newScrubber(sh),
		help:   help.New(),
		focus:  1,
		width:  defaultWidth,
		height: defaultHeight,
		views:  &rootViews{},
	}
	if opts.Width > 0 && opts.Height > 0 {
		m.width, m.height = opts.Width, opts.Height
	}
	sh.focus = m.panes[m.focus].Title()
	m.layout()
	m.refresh()
	m.render()
	return m
}

// Init starts waiting on the feed.
func (m Model) Init() tea.Cmd { return m.wait(time.Now()) }

// View returns the screen rendered by the last Update; it does no work of its own.
func (m Model) View() string { return m.frame }

// Stats returns the frame and refresh counters.
func (m Model) Stats() Stats {
	s := m.stats
	s.Renders = m.sh.renders
	return s
}

// Page returns the grid page shown (0: training, 1: geometry) and its name.
func (m Model) Page() (int, string) { return m.page, pages[m.page].name }

// Step returns the current step and whether the view follows the newest one.
func (m Model) Step() (int, bool) { return m.sh.step, m.sh.follow }

// Focused returns the title of the focused pane.
func (m Model) Focused() string { return m.sh.focus }

// Update handles keys, resizes, feed notifications and the outcome of sent events. The
// model it is called on is left as it was.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m = m.clone()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 1), max(msg.Height, 1)
		m.layout()
		m.refresh()
		m.render()
	case tea.KeyMsg:
		t0 := time.Now()
		next, cmd := m.key(msg)
		if nm, ok := next.(Model); ok {
			d := time.Since(t0)
			nm.stats.Keys++
			nm.stats.KeyTime += d
			nm.stats.KeyMax = max(nm.stats.KeyMax, d)
			return nm, cmd
		}
		return next, cmd
	case feedMsg:
		return m.feed(msg)
	case sentMsg:
		m.status = m.sentText(msg)
		m.render()
	}
	return m, nil
}

// clone gives m its own copy of the mutable state (the shared context, the panes and the
// scrubber); slices and maps in them are replaced on refresh, never changed in place.
func (m Model) clone() Model {
	sh := *m.sh
	m.sh = &sh
	panes := make([]pane, len(m.panes))
	for i, p := range m.panes {
		panes[i] = p.clone(&sh)
	}
	m.panes = panes
	sc := *m.scrub
	sc.sh = &sh
	m.scrub = &sc
	v := *m.views
	v.boxes = append([]boxCache(nil), v.boxes...)
	m.views = &v
	m.snapCache.entries = append([]snapEntry(nil), m.snapCache.entries...)
	m.geoCache.entries = append([]snapEntry(nil), m.geoCache.entries...)
	return m
}

// key dispatches one key through the key table.
func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Fast typing arrives as one message ("g200"): take the runes one by one.
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			nm, cmd := m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
			m, cmds = nm.(Model), append(cmds, cmd)
		}
		return m, tea.Batch(cmds...)
	}
	sh, k := m.sh, m.sh.keys
	step, follow := sh.step, sh.follow
	m.status = ""
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case m.scrub.input && key.Matches(msg, k.Back):
		m.scrub.cancel()
	case m.scrub.input:
		m.scrub.Update(msg)
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
	case key.Matches(msg, k.Back):
		if m.showHelp {
			m.showHelp = false
		} else {
			sh.follow = true
		}
	case key.Matches(msg, k.Next):
		m.setFocus(m.focus + 1)
	case key.Matches(msg, k.Prev):
		m.setFocus(m.focus - 1)
	case key.Matches(msg, k.PageNext):
		m.setPage(m.page + 1)
	case key.Matches(msg, k.PagePrev):
		m.setPage(m.page - 1)
	case key.Matches(msg, k.Jump) && jumpIndex(msg) >= 0 && jumpIndex(msg) < len(m.panes):
		m.setFocus(jumpIndex(msg))
	case key.Matches(msg, k.Pause):
		cmd = m.pause()
	default:
		handled := false
		for i := range m.panes {
			j := (m.focus + i) % len(m.panes) // the focused pane first
			if ok, c := m.panes[j].Update(msg, j == m.focus); ok {
				handled, cmd = true, c
				break
			}
		}
		if !handled {
			m.scrub.Update(msg)
		}
	}
	if sh.step != step || sh.follow != follow {
		m.refresh()
	}
	m.render()
	return m, cmd
}

// setFocus moves the focus to pane i (cyclically) and shows the page holding it.
func (m *Model) setFocus(i int) {
	n := len(m.panes)
	m.focus = ((i % n) + n) % n
	m.sh.focus = m.panes[m.focus].Title()
	if p := pageOf(m.focus); p >= 0 {
		m.page = p
	}
}

// setPage shows page i (cyclically) and focuses its first pane.
func (m *Model) setPage(i int) {
	n := len(pages)
	m.page = ((i % n) + n) % n
	m.setFocus(pages[m.page].first)
}

// pause asks the run to pause, or to resume when its newest record says it is paused.
func (m *Model) pause() tea.Cmd {
	latest, ok, err := m.sh.feed.At(-1)
	if err != nil {
		m.status = "pause: " + err.Error()
		return nil
	}
	kind := sessions.EventPause
	if ok && latest.State == sessions.Paused {
		kind = sessions.EventResume
	}
	return sendCmd(m.sh.feed, sessions.Event{Step: latest.Step, Kind: kind})
}

// sentText describes the outcome of a sent event for the status line.
func (m *Model) sentText(msg sentMsg) string {
	switch {
	case errors.Is(msg.err, sessions.ErrReadOnly) && m.sh.replay:
		return "replay: read-only"
	case errors.Is(msg.err, sessions.ErrReadOnly):
		return "run ended: read-only"
	case msg.err != nil:
		m.logger.Printf("tui: send %s: %v", msg.ev.Kind, msg.err)
		return "send failed: " + msg.err.Error()
	}
	switch msg.ev.Kind {
	case sessions.EventHead:
		state := "off"
		if msg.ev.On {
			state = "on"
		}
		return fmt.Sprintf("sent: %s %s", headName(msg.ev.Layer, msg.ev.Head), state)
	case sessions.EventRestore:
		return "sent: restore all heads"
	}
	return "sent: " + string(msg.ev.Kind)
}

// feed handles a feed notification or tick: it re-queries at most every minFrame and logs
// the frame rate every logInterval.
func (m Model) feed(msg feedMsg) (tea.Model, tea.Cmd) {
	if msg.closed {
		m.closed = true
		m.sh.ended = !m.sh.replay
	}
	if msg.changed || msg.closed {
		m.dirty = true
		m.evalCache.stale = true
		m.snapCache.changed()
		m.geoCache.changed()
	}
	now := time.Now()
	if m.dirty && now.Sub(m.lastRefresh) >= minFrame {
		m.dirty = false
		m.refresh()
		m.render()
	}
	m.logRate(now)
	return m, m.wait(now)
}

// wait is the next feed wait: on Changed or a tick, or, with a redraw pending, only on the
// rest of the frame interval (Changed keeps its signal meanwhile).
func (m Model) wait(now time.Time) tea.Cmd {
	ch := m.sh.feed.Changed()
	if m.closed {
		ch = nil
	}
	d := tickInterval
	if m.dirty {
		ch = nil
		d = max(minFrame-now.Sub(m.lastRefresh), time.Millisecond)
	}
	return waitFeed(ch, d)
}

// logRate writes the frame rate to the logger every logInterval.
func (m *Model) logRate(now time.Time) {
	if m.logAt.IsZero() {
		m.logAt, m.logFrames = now, m.stats.Frames
		return
	}
	if d := now.Sub(m.logAt); d >= logInterval {
		n := m.stats.Frames - m.logFrames
		m.logger.Printf("tui: keys %d, key to screen mean %s max %s", m.stats.Keys, m.stats.KeyTime/time.Duration(max(m.stats.Keys, 1)), m.stats.KeyMax)
		m.logger.Printf("tui: %.1f frames/s (%d frames in %s), %d refreshes, step %d", float64(n)/d.Seconds(), n,
			d.Round(time.Millisecond), m.stats.Refreshes, m.sh.step)
		m.logAt, m.logFrames = now, m.stats.Frames
	}
}

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
	errs = append(errs, m.refreshEvals(), m.refreshSnapshots())
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

// refreshEvals sets sh.evals and sh.ablated for the current step, keeping the previous
// slices (and sh.evalKey) when they are the same.
func (m *Model) refreshEvals() error {
	sh := m.sh
	if !sh.any {
		sh.evals, sh.ablated, sh.evalKey = nil, nil, evalKey{}
		return nil
	}
	evals, err := m.evalCache.upTo(sh.feed, sh.step, sh.last, !sh.replay)
	if err != nil {
		sh.evals, sh.ablated, sh.evalKey = nil, nil, evalKey{gen: -1}
		return err
	}
	k := evalKey{m.evalCache.gen, len(evals)}
	if k == sh.evalKey {
		return nil
	}
	sh.evalKey, sh.evals, sh.ablated = k, nil, nil
	for i := range evals {
		switch {
		case evals[i].Eval == nil:
		case len(evals[i].Eval.Ablated) > 0:
			sh.ablated = &evals[i]
		default:
			sh.evals = append(sh.evals, evals[i])
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

// grid reports whether the terminal is large enough to show a page of panes at once.
func (m *Model) grid() bool { return m.width >= gridWidth && m.height >= gridHeight }

// layout gives every pane its inner size for the current terminal size.
func (m *Model) layout() {
	w, bh := m.width, m.height-2 // the scrubber and the help line
	if m.grid() {
		for _, pg := range pages {
			for slot, r := range gridRects(w, bh-1) { // the page bar
				m.panes[pg.panes[slot]].SetSize(r.w-2, r.h-2)
			}
		}
		return
	}
	for _, p := range m.panes {
		p.SetSize(max(w-2, 0), max(bh-3-2, 0)) // header (2), tab bar (1), border (2)
	}
}

// render lays the screen out into m.frame, exactly width × height. Every part comes from a
// cache that is redrawn only when its inputs changed.
func (m *Model) render() {
	w, h := m.width, m.height
	bh := h - 2
	var body string
	if m.grid() {
		body = m.renderGrid(w, bh)
	} else {
		body = m.renderTabs(w, bh)
	}
	parts := [3]string{body, m.scrubView(w), m.footer(w)}
	if v := m.views; v.frameParts != parts || v.frameW != w || v.frameH != h {
		// Strings that come from the caches compare by pointer first, so this is cheap.
		v.frameParts, v.frameW, v.frameH = parts, w, h
		v.frame = exact(body+"\n"+parts[1]+"\n"+parts[2], w, h)
	}
	m.frame = m.views.frame
	m.stats.Frames++
}

// exact returns s when it has h lines (its parts are each exactly w wide), else fits it.
func exact(s string, w, h int) string {
	if strings.Count(s, "\n") == h-1 {
		return s
	}
	return fit(s, w, h)
}

// renderGrid shows the page bar and the page's four panes: run over ablation (or keys) on
// the left, bit error over attention (or manifold over frame-precision) on the right.
func (m *Model) renderGrid(w, h int) string {
	if m.showHelp {
		return m.helpBox(w, h)
	}
	bar := m.views.pageBar.get(m.sh, pageBarKey{w, m.page}, func() string { return pageBar(m.page, w, m.sh.st) })
	pg := pages[m.page]
	rs := gridRects(w, h-1)
	var parts [5]string
	parts[0] = bar
	for slot := range 4 {
		i := pg.panes[slot]
		parts[slot+1] = m.boxed(i, rs[slot].w, rs[slot].h, i == m.focus)
	}
	if v := m.views; v.gridParts != parts {
		v.gridParts = parts
		v.grid = bar + "\n" + hcat(vcat(parts[1], parts[2]), vcat(parts[3], parts[4]))
	}
	return m.views.grid
}

// renderTabs shows the run summary, a tab bar and the focused pane.
func (m *Model) renderTabs(w, h int) string {
	sh := m.sh
	head := m.views.header.get(sh, headerKey{w, sh.gen}, func() string { return fit(headerLines(sh), w, 2) })
	tabs := m.views.tabs.get(sh, tabsKey{w, m.focus}, func() string { return m.tabBar(w) })
	top := head + "\n" + tabs
	bh := h - 3
	if bh < 3 {
		return top
	}
	if m.showHelp {
		return top + "\n" + m.helpBox(w, bh)
	}
	return top + "\n" + m.boxed(m.focus, w, bh, true)
}

// helpBox is the full help in a w×h box.
func (m *Model) helpBox(w, h int) string {
	return m.views.help.get(m.sh, helpKey{w, h}, func() string {
		return box("Keys — ? or esc closes", m.fullHelp(w-2, h-2), w, h, true, m.sh.st)
	})
}

// boxed returns pane i's view in its w×h box, re-boxing only when the view, the size or
// the focus changed.
func (m *Model) boxed(i, w, h int, focused bool) string {
	p := m.panes[i]
	content := p.View()
	if len(m.views.boxes) != len(m.panes) {
		m.views.boxes = make([]boxCache, len(m.panes))
	}
	c := &m.views.boxes[i]
	if c.ok && c.epoch == m.sh.epoch && c.w == w && c.h == h && c.focused == focused && c.content == content {
		return c.out
	}
	m.sh.renders++
	*c = boxCache{ok: true, epoch: m.sh.epoch, w: w, h: h, focused: focused, content: content,
		out: box(p.Title(), content, w, h, focused, m.sh.st)}
	return c.out
}

// tabBar lists the panes, with full titles when they fit, else the focused one in full and
// the others short, else all short.
func (m *Model) tabBar(w int) string {
	full, mixed, short := make([]string, len(m.panes)), make([]string, len(m.panes)), make([]string, len(m.panes))
	for i, p := range m.panes {
		full[i], mixed[i], short[i] = p.Title(), p.Tab(), p.Tab()
	}
	mixed[m.focus] = full[m.focus]
	for _, titles := range [][]string{full, mixed} {
		if tabBarWidth(titles) <= w {
			return tabBar(titles, m.focus, w, m.sh.st)
		}
	}
	return tabBar(short, m.focus, w, m.sh.st)
}

// scrubView is the scrubber line, cached on what it shows.
func (m *Model) scrubView(w int) string {
	sh, sc := m.sh, m.scrub
	k := scrubKey{w, sh.step, sh.first, sh.last, sh.any, sh.follow, sh.replay, sh.ended, sc.input, sc.buf}
	return m.views.scrub.get(sh, k, func() string { return sc.View(w) })
}

// rootViews caches the parts of the screen the root draws itself.
type rootViews struct {
	header, tabs, scrub, footer, help, pageBar viewCache
	boxes                                      []boxCache

	gridParts      [5]string // the page bar and the boxes the grid was joined from
	grid           string
	frameParts     [3]string // body, scrubber and footer of the frame
	frameW, frameH int
	frame          string
}

// boxCache is one pane's boxed view and what it was drawn from.
type boxCache struct {
	ok          bool
	epoch, w, h int
	focused     bool
	content     string
	out         string
}

type (
	headerKey  struct{ w, gen int }
	tabsKey    struct{ w, focus int }
	helpKey    struct{ w, h int }
	pageBarKey struct{ w, page int }
	footerKey  struct {
		w, focus int
		msg      string
	}
	scrubKey struct {
		w, step, first, last              int
		any, follow, replay, ended, input bool
		buf                               string
	}
)

// footer is the status or error message, if any, then the short help.
func (m *Model) footer(w int) string {
	msg := m.status
	if msg == "" && m.feedErr != "" {
		msg = "feed: " + m.feedErr
	}
	return m.views.footer.get(m.sh, footerKey{w, m.focus, msg}, func() string {
		if msg != "" {
			msg = m.sh.st.warn.Render(msg) + "  "
		}
		return padLine(msg+shortHelp(m.help, m.sh.keys, m.panes[m.focus].Help(), w-ansi.StringWidth(msg)), w)
	})
}

// fullHelp lists every key, grouped: global, scrubber, then each pane's own.
func (m *Model) fullHelp(w, h int) string {
	groups := []helpGroup{{"Global", m.sh.keys.global()}, {"Scrubber", append(m.scrub.Help(), m.sh.keys.Enter, m.sh.keys.Erase)}}
	for _, p := range m.panes {
		groups = append(groups, helpGroup{p.Title(), p.Help()})
	}
	return fullHelp(groups, w, h, m.sh.st)
}
