package tui

import (
	"fmt"
	"log"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// Stats counts the dashboard's work so its redraw rate can be measured, and says how the
// user left a live run.
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
	// Detached is set when the user left a live run going (d in the quit dialog): the
	// caller keeps the run and its session going without the dashboard. Stopped is set
	// when they stopped it (s), once the stop event was sent.
	Detached bool
	Stopped  bool
	// Resumed is set when the user chose resume and detach on a paused run (Detached too,
	// once the resume event was sent); Paused when they detached leaving it paused, at
	// step PausedAt.
	Resumed  bool
	Paused   bool
	PausedAt int
}

// Fate says what became of a run the user detached from, for the caller's message: "goes
// on", or that it stays paused and how to resume it.
func (s Stats) Fate() string {
	if s.Paused {
		return fmt.Sprintf("stays paused at step %d (windtunnel attach, then p, resumes it)", s.PausedAt)
	}
	return "goes on"
}

// Model is the root bubbletea model: it owns the panes, the scrubber, the focus and the
// layout, and paces the re-reading of the feed. Its jobs each have a file: key routing
// (route.go), feed pacing (feed.go), reading through the caches (cache.go), layout
// (layout.go) and drawing (render.go).
type Model struct {
	sh     *shared
	logger *log.Logger
	panes  []pane
	scrub  *scrubber
	help   help.Model

	focus         int
	page          int // the grid page (pane group) shown
	showHelp      bool
	helpPage      int // the full help's page shown
	width, height int
	frame         string
	status        string
	feedErr       string

	evalCache evalCache // every evaluation up to some step
	snapCache snapCache // the snapshots read lately and the steps they are known to cover
	geoCache  geoCache  // the geometry snapshots found lately and the steps they answer for
	views     *rootViews

	quit     quitDialog // what q asks on a live run
	detached bool       // left with detach: the run goes on
	stopping bool       // stop chosen: quit once the stop event has gone
	stopped  bool       // left with stop
	resuming bool       // resume and detach chosen: leave once the resume event has gone
	resumed  bool       // left with resume and detach
	// leftPaused: left with detach while the run was paused, at step leftAt.
	leftPaused bool
	leftAt     int
	embedded   bool      // leaving sends LeftMsg instead of quitting (Options.Embedded)
	drag       mouseDrag // a drag on the scrubber bar under way
	runPID     int       // the live run's process, sampled for the System pane (Options.RunPID)

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
	meta := feed.Meta()
	sh := &shared{feed: feed, meta: meta, cfg: readConfig(meta), keys: DefaultKeys(), st: look.NewStyles(opts.Renderer),
		replay: !feed.Live(), follow: true, scalarTo: -1}
	m := Model{
		sh:     sh,
		logger: opts.Log(),
		panes: []pane{newRunPane(sh), newBitErrorPane(sh), newAttentionPane(sh), newAblationPane(sh),
			newKeysPane(sh), newManifoldPane(sh), newFramePane(sh), newLossPane(sh), newOptimPane(sh), newSystemPane(sh, opts.RunPID)},
		scrub:    newScrubber(sh),
		help:     look.NewHelp(opts.Renderer),
		focus:    1,
		width:    DefaultWidth,
		height:   DefaultHeight,
		views:    &rootViews{},
		quit:     quitDialog{note: opts.DetachNote, noStop: opts.ReadOnly},
		embedded: opts.Embedded,
		runPID:   opts.RunPID,
	}
	sh.readOnly = opts.ReadOnly
	if !sh.canAct() {
		sh.watchOnly()
	}
	if m.quit.note == "" {
		m.quit.note = defaultDetachNote
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

// Init starts waiting on the feed and, on a live run whose process it knows, sampling it.
func (m Model) Init() tea.Cmd {
	if m.sysSampling() {
		return tea.Batch(m.wait(time.Now()), sampleSys(m.runPID, 0))
	}
	return m.wait(time.Now())
}

// View returns the screen rendered by the last Update; it does no work of its own.
func (m Model) View() string { return m.frame }

// Stats returns the frame and refresh counters.
func (m Model) Stats() Stats {
	s := m.stats
	s.Renders = m.sh.renders
	s.Detached, s.Stopped = m.detached, m.stopped
	s.Resumed, s.Paused, s.PausedAt = m.resumed, m.leftPaused, m.leftAt
	return s
}

// Detached reports whether the user left the live run going (d in the quit dialog).
func (m Model) Detached() bool { return m.detached }

// Page returns the grid page shown (0: training, 1: geometry) and its name.
func (m Model) Page() (int, string) { return m.page, pages[m.page].name }

// Step returns the current step and whether the view follows the newest one.
func (m Model) Step() (int, bool) { return m.sh.step, m.sh.follow }

// Focused returns the title of the focused pane.
func (m Model) Focused() string { return m.sh.focus }

// Update handles keys, the mouse (its wheel zooms), resizes, feed notifications and the
// outcome of sent events. The model it is called on is left as it was.
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
	case tea.MouseMsg:
		step, follow, zoom := m.sh.step, m.sh.follow, m.sh.zoom
		if m.mouse(msg) {
			if m.sh.step != step || m.sh.follow != follow || m.sh.zoom != zoom {
				m.refresh()
			}
			m.render()
		}
	case feedMsg:
		return m.feed(msg)
	case sysMsg:
		return m, m.system(msg)
	case sentMsg:
		m.status = m.sentText(msg)
		if cmd := m.eventSent(msg); cmd != nil {
			return m, cmd
		}
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
