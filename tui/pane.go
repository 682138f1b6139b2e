package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// pane is one component of the dashboard. The root sizes it, asks it to re-query the feed
// when the step or the data changed, forwards keys to it and boxes its View.
type pane interface {
	// Title names the pane in its border and in the tab bar.
	Title() string
	// Tab is the short name used in the tab bar when the titles do not fit.
	Tab() string
	// SetSize gives the pane its inner size (inside the border).
	SetSize(w, h int)
	// Refresh re-reads the pane's data from the feed up to the current step.
	Refresh() error
	// Update handles a key; focused tells whether the pane has focus. It reports whether
	// the key was the pane's.
	Update(msg tea.KeyMsg, focused bool) (bool, tea.Cmd)
	// View renders the pane's content at exactly its inner size. It returns the cached view
	// unless its inputs (size, focus, toggles, the data it shows) changed.
	View() string
	// Help lists the pane's own keys.
	Help() []key.Binding
	// clone copies the pane's state onto the context sh, so that models stay values.
	clone(sh *shared) pane
}

// paneBase is what every pane has: the shared context it reads, its names, its inner size
// and the cache of its rendered view. Panes embed it and get Title, Tab and SetSize from
// it, and the defaults of a pane with nothing of its own to read (Refresh) and no keys
// (Update, Help) unless they define their own.
type paneBase struct {
	sh         *shared
	title, tab string
	w, h       int
	cache      viewCache
}

// newPaneBase returns the base of a pane reading sh, titled title and tab in the tab bar
// when the titles do not fit.
func newPaneBase(sh *shared, title, tab string) paneBase {
	return paneBase{sh: sh, title: title, tab: tab}
}

// Title names the pane.
func (b *paneBase) Title() string { return b.title }

// Tab is the short name.
func (b *paneBase) Tab() string { return b.tab }

// SetSize sets the inner size.
func (b *paneBase) SetSize(w, h int) { b.w, b.h = w, h }

// Refresh has nothing to read: the root fetched what the pane shows.
func (b *paneBase) Refresh() error { return nil }

// Update handles no keys.
func (b *paneBase) Update(tea.KeyMsg, bool) (bool, tea.Cmd) { return false, nil }

// Help lists no keys.
func (b *paneBase) Help() []key.Binding { return nil }

// focused reports whether the root gave this pane focus (it records that in the shared
// context).
func (b *paneBase) focused() bool { return b.sh.focus == b.title }

// base returns the embedded base, for cloneOn.
func (b *paneBase) base() *paneBase { return b }

// basedPane is a pointer to a pane type T that embeds paneBase.
type basedPane[T any] interface {
	*T
	pane
	base() *paneBase
}

// cloneOn copies the pane p onto the context sh: a pane's clone is cloneOn(p, sh).
func cloneOn[T any, P basedPane[T]](p P, sh *shared) pane {
	c := P(new(T))
	*c = *p
	c.base().sh = sh
	return c
}
