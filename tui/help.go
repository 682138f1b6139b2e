package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// helpGroup is one titled column of the full help.
type helpGroup struct {
	title    string
	bindings []key.Binding
}

// shortHelp renders the one-line help: help and quit, the focused pane's keys, then the rest.
func shortHelp(h help.Model, k keyMap, pane []key.Binding, w int) string {
	bs := []key.Binding{k.Help, k.Quit, k.Next}
	bs = append(bs, pane...)
	bs = append(bs, k.StepBack, k.StepFwd, k.Goto, k.Pause)
	return fitHelp(h, bs, w)
}

// quitHelp renders the one-line help of the quit dialog (which takes every key while open).
func quitHelp(h help.Model, k keyMap, w int) string { return fitHelp(h, k.quitDialog(), w) }

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

// fullHelp renders the groups as titled blocks flowed into as many columns as fit w×h.
func fullHelp(groups []helpGroup, w, h int, st styles) string {
	var blocks [][]string
	for _, g := range groups {
		g.bindings = enabled(g.bindings) // a watch-only viewer's acting keys are not offered
		if len(g.bindings) == 0 {
			continue
		}
		kw := 0
		for _, b := range g.bindings {
			kw = max(kw, ansi.StringWidth(b.Help().Key))
		}
		lines := []string{st.title.Render(g.title)}
		for _, b := range g.bindings {
			lines = append(lines, padLine(b.Help().Key, kw)+" "+st.dim.Render(b.Help().Desc))
		}
		blocks = append(blocks, lines)
	}
	// Greedy flow: stack blocks (a blank line apart) until the column is full.
	var cols [][]string
	var col []string
	for _, b := range blocks {
		need := len(b)
		if len(col) > 0 {
			need++
		}
		if len(col) > 0 && len(col)+need > h {
			cols = append(cols, col)
			col = nil
		}
		if len(col) > 0 {
			col = append(col, "")
		}
		col = append(col, b...)
	}
	if len(col) > 0 {
		cols = append(cols, col)
	}
	var rendered []string
	for _, c := range cols {
		cw := 0
		for _, l := range c {
			cw = max(cw, ansi.StringWidth(l))
		}
		rendered = append(rendered, fit(strings.Join(c, "\n"), cw+2, len(c)))
	}
	return fit(hjoin(rendered...), w, h)
}
