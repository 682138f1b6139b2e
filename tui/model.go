package tui

import (
	"errors"
	"fmt"
	"io"
	"log"
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
	gridWidth     = 160 // at this size and above every pane shows at once
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
	showHelp      bool
	width, height int
	frame         string
	status        string
	feedErr       string

	evalCache evalCache // every evaluation up to some step, until the feed changes

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
		panes:  []pane{newRunPane(sh), newBitErrorPane(sh), newAttentionPane(sh), newAblationPane(sh)},
		scrub:  newScrubber(sh),
		help:   help.New(),
		focus:  1,
		width:  defaultWidth,
		height: defaultHeight,
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
func (m Model) Stats() Stats { return m.stats }

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

// setFocus moves the focus to pane i (cyclically).
func (m *Model) setFocus(i int) {
	n := len(m.panes)
	m.focus = ((i % n) + n) % n
	m.sh.focus = m.panes[m.focus].Title()
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
		m.evalCache = evalCache{}
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

// refresh re-reads the feed up to the current step and lets every pane do the same.
func (m *Model) refresh() {
	sh := m.sh
	now := time.Now()
	m.stats.Refreshes++
	m.stats.LastUpdate, m.lastRefresh = now, now
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
	sh.evals, sh.ablated = nil, nil
	if sh.any {
		evals, err := m.evalCache.upTo(sh.feed, sh.step)
		errs = append(errs, err)
		for i := range evals {
			switch {
			case evals[i].Eval == nil:
			case len(evals[i].Eval.Ablated) > 0:
				sh.ablated = &evals[i]
			default:
				sh.evals = append(sh.evals, evals[i])
			}
		}
	}
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

// evalCache keeps the evaluations read up to a step, so that scrubbing back and forth
// between feed changes filters them in memory instead of reading them again.
type evalCache struct {
	valid bool
	step  int
	recs  []sessions.Record
}

// upTo returns the evaluations with Step ≤ step, from the cache when it covers step.
func (c *evalCache) upTo(f sessions.Feed, step int) ([]sessions.Record, error) {
	if !c.valid || step > c.step {
		recs, err := f.Evals(step, 0)
		if err != nil {
			*c = evalCache{}
			return nil, err
		}
		*c = evalCache{valid: true, step: step, recs: recs}
	}
	n := sort.Search(len(c.recs), func(i int) bool { return c.recs[i].Step > step })
	return c.recs[:n:n], nil
}

// grid reports whether the terminal is large enough to show every pane at once.
func (m *Model) grid() bool { return m.width >= gridWidth && m.height >= gridHeight }

// gridSizes returns the outer sizes of the grid layout: left column width, run pane height,
// bit error pane height, for a body of w×h.
func gridSizes(w, h int) (lw, runH, bitH int) {
	return w * 2 / 5, min(runLines+2+4, h/2), h / 2
}

// layout gives every pane its inner size for the current terminal size.
func (m *Model) layout() {
	w, bh := m.width, m.height-2 // the scrubber and the help line
	if m.grid() {
		lw, runH, bitH := gridSizes(w, bh)
		run, bit, att, abl := m.panes[0], m.panes[1], m.panes[2], m.panes[3]
		run.SetSize(lw-2, runH-2)
		abl.SetSize(lw-2, bh-runH-2)
		bit.SetSize(w-lw-2, bitH-2)
		att.SetSize(w-lw-2, bh-bitH-2)
		return
	}
	for _, p := range m.panes {
		p.SetSize(max(w-2, 0), max(bh-3-2, 0)) // header (2), tab bar (1), border (2)
	}
}

// render lays the screen out into m.frame, exactly width × height.
func (m *Model) render() {
	w, h := m.width, m.height
	bh := h - 2
	var body string
	if m.grid() {
		body = m.renderGrid(w, bh)
	} else {
		body = m.renderTabs(w, bh)
	}
	m.frame = fit(body+"\n"+m.scrub.View(w)+"\n"+m.footer(w), w, h)
	m.stats.Frames++
}

// renderGrid shows every pane: run over ablation on the left, bit error over attention on the right.
func (m *Model) renderGrid(w, h int) string {
	if m.showHelp {
		return box("Keys — ? or esc closes", m.fullHelp(w-2, h-2), w, h, true, m.sh.st)
	}
	lw, runH, bitH := gridSizes(w, h)
	b := func(i, bw, bh int) string {
		p := m.panes[i]
		return box(p.Title(), p.View(), bw, bh, i == m.focus, m.sh.st)
	}
	left := vjoin(b(0, lw, runH), b(3, lw, h-runH))
	right := vjoin(b(1, w-lw, bitH), b(2, w-lw, h-bitH))
	return hjoin(left, right)
}

// renderTabs shows the run summary, a tab bar and the focused pane.
func (m *Model) renderTabs(w, h int) string {
	titles := make([]string, len(m.panes))
	for i, p := range m.panes {
		titles[i] = p.Title()
	}
	top := fit(headerLines(m.sh), w, 2) + "\n" + tabBar(titles, m.focus, w, m.sh.st)
	bh := h - 3
	if bh < 3 {
		return top
	}
	if m.showHelp {
		return top + "\n" + box("Keys — ? or esc closes", m.fullHelp(w-2, bh-2), w, bh, true, m.sh.st)
	}
	p := m.panes[m.focus]
	return top + "\n" + box(p.Title(), p.View(), w, bh, true, m.sh.st)
}

// footer is the status or error message, if any, then the short help.
func (m *Model) footer(w int) string {
	msg := m.status
	if msg == "" && m.feedErr != "" {
		msg = "feed: " + m.feedErr
	}
	if msg != "" {
		msg = m.sh.st.warn.Render(msg) + "  "
	}
	return padLine(msg+shortHelp(m.help, m.sh.keys, m.panes[m.focus].Help(), w-ansi.StringWidth(msg)), w)
}

// fullHelp lists every key, grouped: global, scrubber, then each pane's own.
func (m *Model) fullHelp(w, h int) string {
	groups := []helpGroup{{"Global", m.sh.keys.global()}, {"Scrubber", append(m.scrub.Help(), m.sh.keys.Enter, m.sh.keys.Erase)}}
	for _, p := range m.panes {
		groups = append(groups, helpGroup{p.Title(), p.Help()})
	}
	return fullHelp(groups, w, h, m.sh.st)
}
