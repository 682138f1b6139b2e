package look

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// HelpGroup is one titled block of the full help: key bindings, or paragraphs of text (a
// legend) when it has no bindings. FullHelp wraps the paragraphs to the room it has, their
// later lines indented.
type HelpGroup struct {
	Title    string
	Bindings []key.Binding
	Text     []string
}

// helpGap is the blank between two columns of the full help.
const helpGap = 2

// FullHelp renders the groups as titled blocks flowed into as many columns as fit w×h: a
// group's enabled bindings, key and description, or its paragraphs, wrapped to the width
// left right of the finished columns (at least minTextW, at most maxTextW) and placed below
// the column's blocks, else in a column of their own, else as many of them (in order) as
// fit below.
func FullHelp(groups []HelpGroup, w, h int, st Styles) string {
	out, _ := fullHelp(groups, w, h, st)
	return out
}

// HelpPages splits groups into the pages of a full help w×h: one when FullHelp shows them
// all whole, else as many whole groups a page as it shows, in order (a group that fits no
// page alone gets one of its own, shown as far as it fits).
func HelpPages(groups []HelpGroup, w, h int, st Styles) [][]HelpGroup {
	var pages [][]HelpGroup
	var page []HelpGroup
	for _, g := range groups {
		if _, ok := fullHelp(append(append([]HelpGroup(nil), page...), g), w, h, st); ok || len(page) == 0 {
			page = append(page, g)
			continue
		}
		pages, page = append(pages, page), []HelpGroup{g}
	}
	if len(page) > 0 {
		pages = append(pages, page)
	}
	return pages
}

// fullHelp is FullHelp, and whether it shows every group whole.
func fullHelp(groups []HelpGroup, w, h int, st Styles) (string, bool) {
	const minTextW, maxTextW = 24, 60
	whole := true
	var cols [][]string
	var col []string
	used := 0 // the width of the finished columns, gaps included
	closeCol := func() {
		if len(col) > 0 {
			used += blockWidth(col) + helpGap
			cols = append(cols, col)
			col = nil
		}
	}
	add := func(b []string) {
		need := len(b)
		if len(col) > 0 {
			need++
		}
		if len(col) > 0 && len(col)+need > h {
			closeCol()
		}
		if len(b) > h {
			whole = false
		}
		if len(col) > 0 {
			col = append(col, "")
		}
		col = append(col, b...)
	}
	for _, g := range groups {
		var bs []key.Binding
		for _, b := range g.Bindings {
			if b.Enabled() {
				bs = append(bs, b)
			}
		}
		switch {
		case len(bs) > 0:
			kw := 0
			for _, b := range bs {
				kw = max(kw, ansi.StringWidth(b.Help().Key))
			}
			lines := []string{st.Title.Render(g.Title)}
			for _, b := range bs {
				lines = append(lines, PadLine(b.Help().Key, kw)+" "+st.Dim.Render(b.Help().Desc))
			}
			add(lines)
		case len(g.Text) > 0:
			// Below the column's blocks (its width is free), else in a column of its own
			// when one fits beside, else as many of its paragraphs as fit below.
			below := h - len(col) - 1
			if len(col) == 0 {
				below = h
			}
			if b := textBlock(g, st, min(max(w-used, minTextW), maxTextW), below); len(b) > 0 && len(b) == textLines(g, min(max(w-used, minTextW), maxTextW)) {
				add(b)
				continue
			}
			if len(col) > 0 && w-used-blockWidth(col)-helpGap >= minTextW {
				closeCol()
				below = h
			}
			b := textBlock(g, st, min(max(w-used, minTextW), maxTextW), below)
			if len(b) > 0 {
				add(b)
			}
			whole = whole && len(b) == textLines(g, min(max(w-used, minTextW), maxTextW))
		}
	}
	closeCol()
	whole = whole && used-helpGap <= w
	var rendered []string
	for i, c := range cols {
		cw := blockWidth(c)
		if i < len(cols)-1 {
			cw += helpGap
		}
		rendered = append(rendered, Fit(strings.Join(c, "\n"), cw, len(c)))
	}
	return Fit(hjoin(rendered...), w, h), whole
}

// textBlock is g's title and the paragraphs that fit in h lines, in order, wrapped to w
// cells with their later lines indented; nil when not even the first fits.
func textBlock(g HelpGroup, st Styles, w, h int) []string {
	lines := []string{st.Title.Render(g.Title)}
	for _, p := range g.Text {
		para := Wrap(p, w-2)
		if len(lines)+len(para) > h {
			break
		}
		for i, l := range para {
			if i > 0 {
				l = "  " + l
			}
			lines = append(lines, l)
		}
	}
	if len(lines) == 1 {
		return nil
	}
	return lines
}

// textLines is the height of g's text block in full at width w.
func textLines(g HelpGroup, w int) int {
	n := 1
	for _, p := range g.Text {
		n += len(Wrap(p, w-2))
	}
	return n
}

// blockWidth is the width of the widest line.
func blockWidth(lines []string) int {
	n := 0
	for _, l := range lines {
		n = max(n, ansi.StringWidth(l))
	}
	return n
}

// FitHelp renders in one line of at most w cells the enabled bindings that fit, in order,
// leaving out whole ones that do not (no ellipsis, nothing cut): the one-line help of the
// dashboard and the comparison view.
func FitHelp(h help.Model, bs []key.Binding, w int) string {
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
