package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
)

// Pacing of the feed: the dashboard polls it every tickInterval (twice a second: a step
// counter needs no more, charts change only at evaluations, and keys redraw at once) and
// redraws when it changed. It does not wake per record. Every redraw costs the trainer far
// more than its own CPU time, because the trainer's kernels split each step over all cores
// and wait for the slowest part: measured with `windtunnel bench --dashboard` (README,
// "What the dashboard costs"), polling 5 times a second cost the trainer 3–4% of its speed,
// twice a second 1.4%, once a second with a 5 fps renderer 0.4%; waking on each record had
// cost 20%.
const (
	tickInterval = 500 * time.Millisecond
	minFrame     = tickInterval
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
