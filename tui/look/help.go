package look

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// HelpGroup is one titled block of the full help: key bindings, or lines of text (a
// legend) when it has no bindings.
type HelpGroup struct {
	Title    string
	Bindings []key.Binding
	Text     []string
}

// FullHelp renders the groups as titled blocks flowed into as many columns as fit w×h: a
// group's enabled bindings, key and description, or its text.
func FullHelp(groups []HelpGroup, w, h int, st Styles) string {
	var blocks [][]string
	for _, g := range groups {
		var bs []key.Binding
		for _, b := range g.Bindings {
			if b.Enabled() {
				bs = append(bs, b)
			}
		}
		if len(bs) == 0 && len(g.Text) == 0 {
			continue
		}
		kw := 0
		for _, b := range bs {
			kw = max(kw, ansi.StringWidth(b.Help().Key))
		}
		lines := []string{st.Title.Render(g.Title)}
		for _, b := range bs {
			lines = append(lines, PadLine(b.Help().Key, kw)+" "+st.Dim.Render(b.Help().Desc))
		}
		lines = append(lines, g.Text...)
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
		rendered = append(rendered, Fit(strings.Join(c, "\n"), cw+2, len(c)))
	}
	return Fit(HJoin(rendered...), w, h)
}
