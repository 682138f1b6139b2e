package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
)

// Pacing of the feed: wake on Changed or on a tick, and redraw at most every minFrame.
const (
	tickInterval = 100 * time.Millisecond
	minFrame     = 50 * time.Millisecond // about 20 redraws a second at most
	logInterval  = 5 * time.Second
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

// waitFeed waits for the feed's Changed signal (when ch is not nil) or for d, whichever is
// first. The producer is never blocked: Changed has capacity 1 and a non-blocking send, so
// every burst of records costs one message here.
func waitFeed(ch <-chan struct{}, d time.Duration) tea.Cmd {
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case _, ok := <-ch:
			return feedMsg{changed: true, closed: !ok}
		case <-t.C:
			return feedMsg{}
		}
	}
}

// sendCmd sends an operator event off the UI goroutine and reports the outcome.
func sendCmd(f sessions.Feed, e sessions.Event) tea.Cmd {
	return func() tea.Msg { return sentMsg{ev: e, err: f.Send(e)} }
}
