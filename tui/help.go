package tui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// shortHelp renders the one-line help: help and quit, the focused pane's keys, then the rest.
func shortHelp(h help.Model, k KeyMap, pane []key.Binding, w int) string {
	bs := []key.Binding{k.Help, k.Quit, k.Next}
	bs = append(bs, pane...)
	bs = append(bs, k.StepBack, k.StepFwd, k.Goto, k.Pause)
	return fitHelp(h, bs, w)
}

// quitHelp renders the one-line help of the quit dialog (which takes every key while open).
func quitHelp(h help.Model, k KeyMap, w int) string { return fitHelp(h, k.quitDialog(), w) }

// fitHelp renders in one line of at most w cells the bindings that fit, in order, leaving
// out whole ones that do not (no ellipsis, nothing cut).
func fitHelp(h help.Model, bs []key.Binding, w int) string {
	sep := ansi.StringWidth(h.ShortSeparator)
	var keep []key.Binding
	n := 0
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		add := ansi.StringWidth(b.Help().Key) + 1 + ansi.StringWidth(b.Help().Desc)
		if len(keep) > 0 {
			add += sep
		}
		if n+add <= w {
			keep, n = append(keep, b), n+add
		}
	}
	h.Width = 0
	return h.ShortHelpView(keep)
}
