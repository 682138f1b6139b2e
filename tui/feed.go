package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
)

// Pacing of the feed: the dashboard polls it every TickInterval (twice a second: a step
// counter needs no more, charts change only at evaluations, and keys redraw at once) and
// redraws when it changed. It does not wake per record. Every redraw costs the trainer far
// more than its own CPU time, because the trainer's kernels split each step over all cores
// and wait for the slowest part: measured with `windtunnel bench --dashboard` (docs/speed.md,
// \"What the dashboard costs\"), polling 5 times a second cost the trainer 3–4% of its speed,
// twice a second 1.4%, once a second with a 5 fps renderer 0.4%; waking on each record had
// cost 20%.
const (
	TickInterval = 500 * time.Millisecond
	minFrame     = TickInterval
	logInterval  = 5 * time.Second
	// rendererFPS caps bubbletea's own repaint ticker (default 60 a second).
	rendererFPS = 15
)

// feedMsg reports that the feed changed (or that a tick passed).
type feedMsg struct {
	changed bool // Changed was signalled
	closed  bool // Changed was closed: the run ended
}

// sentMsg reports the outcome of sending an operator event.
type sentMsg struct {
	ev  sessions.Event
	err error
}

// waitFeed sleeps d, then reports whether the feed's Changed signal (when ch is not nil)
// arrived or was closed meanwhile. The producer is never blocked: Changed has capacity 1 and
// a non-blocking send, so any number of records between two polls costs one message.
func waitFeed(ch <-chan struct{}, d time.Duration) tea.Cmd {
	return func() tea.Msg {
		time.Sleep(d)
		if ch == nil {
			return feedMsg{}
		}
		select {
		case _, ok := <-ch:
			return feedMsg{changed: true, closed: !ok}
		default:
			return feedMsg{}
		}
	}
}

// sendCmd sends an operator event off the UI goroutine and reports the outcome.
func sendCmd(f sessions.Feed, e sessions.Event) tea.Cmd {
	return func() tea.Msg { return sentMsg{ev: e, err: f.Send(e)} }
}

// feed handles a feed notification or tick: it re-queries at most every minFrame and logs
// the frame rate every logInterval.
func (m Model) feed(msg feedMsg) (tea.Model, tea.Cmd) {
	if msg.closed {
		m.closed = true
		if !m.sh.replay && !m.sh.ended {
			m.sh.ended = true
			m.sh.watchOnly()
		}
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
	if m.quit.open && (msg.changed || msg.closed) {
		// The dialog says the run's state as it is now (another viewer may resume it).
		m.quitState()
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
	d := TickInterval
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
