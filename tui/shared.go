package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
)

// shared is the context every pane reads: the feed, the styles and key table, the current
// step and what the root fetched for it. The root owns it; panes only read it.
type shared struct {
	feed   sessions.Feed
	meta   sessions.Meta
	keys   keyMap
	st     styles
	replay bool // the feed was not live when the dashboard opened

	live   bool   // the feed takes commands now
	ended  bool   // Changed was closed: nothing more will arrive
	follow bool   // the view tracks the newest step
	focus  string // title of the focused pane
	step   int    // the current step: every query is made up to it
	first  int
	last   int
	any    bool // the feed has at least one record

	rec     sessions.Record // newest record at or before step
	hasRec  bool
	evals   []sessions.Record // evaluations of the whole model up to step, oldest first
	ablated *sessions.Record  // newest evaluation with ablated heads up to step
}

// lastEval is the newest evaluation of the whole model up to the current step.
func (s *shared) lastEval() *sessions.Record {
	if len(s.evals) == 0 {
		return nil
	}
	return &s.evals[len(s.evals)-1]
}

// hasAttention reports whether the model has attention heads at all.
func (s *shared) hasAttention() bool { return s.meta.Heads > 0 && s.meta.Layers > 0 }

// pane is one component of the dashboard. The root sizes it, asks it to re-query the feed
// when the step or the data changed, forwards keys to it and boxes its View.
type pane interface {
	// Title names the pane in its border and in the tab bar.
	Title() string
	// SetSize gives the pane its inner size (inside the border).
	SetSize(w, h int)
	// Refresh re-reads the pane's data from the feed up to the current step.
	Refresh() error
	// Update handles a key; focused tells whether the pane has focus. It reports whether
	// the key was the pane's.
	Update(msg tea.KeyMsg, focused bool) (bool, tea.Cmd)
	// View renders the pane's content at exactly its inner size.
	View() string
	// Help lists the pane's own keys.
	Help() []key.Binding
	// clone copies the pane's state onto the context sh, so that models stay values.
	clone(sh *shared) pane
}
