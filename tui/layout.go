package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// padLine cuts a line to w cells (ANSI-aware) and pads it with spaces to exactly w.
func padLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// fit makes s exactly w cells wide and h lines high, cutting or padding as needed.
func fit(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = padLine(l, w)
	}
	return strings.Join(lines, "\n")
}

// borderChars are the glyphs of one box style.
type borderChars struct{ h, v, tl, tr, bl, br string }

// borders returns the thin box glyphs, or the thick ones for the focused pane.
func borders(focused bool) borderChars {
	if focused {
		return borderChars{"━", "┃", "┏", "┓", "┗", "┛"}
	}
	return borderChars{"─", "│", "╭", "╮", "╰", "╯"}
}

// box draws content in a w×h frame with the title in its top edge. A focused box has a
// thick border and a ▶ before its title, so focus shows without colour.
func box(title, content string, w, h int, focused bool, st styles) string {
	if w < 2 || h < 2 {
		return fit("", w, h)
	}
	b, bs := borders(focused), st.border
	label := " " + title + " "
	if focused {
		bs = st.focus
		label = " ▶ " + title + " "
	}
	inner := w - 2
	if ansi.StringWidth(label) > inner-1 {
		label = ansi.Truncate(label, max(inner-1, 0), "…")
	}
	top := bs.Render(b.tl+b.h) + st.title.Render(label)
	top += bs.Render(strings.Repeat(b.h, max(inner-1-ansi.StringWidth(label), 0)) + b.tr)
	lines := []string{top}
	body := strings.Split(fit(content, inner, h-2), "\n")
	for _, l := range body {
		if h-2 <= 0 {
			break
		}
		lines = append(lines, bs.Render(b.v)+l+bs.Render(b.v))
	}
	lines = append(lines, bs.Render(b.bl+strings.Repeat(b.h, inner)+b.br))
	return strings.Join(lines, "\n")
}

// tabBar lists the panes with the focused one marked [like this].
func tabBar(titles []string, focus, w int, st styles) string {
	var parts []string
	for i, t := range titles {
		if i == focus {
			parts = append(parts, st.tabActive.Render("["+t+"]"))
		} else {
			parts = append(parts, st.tab.Render(" "+t+" "))
		}
	}
	return padLine(strings.Join(parts, st.dim.Render("│")), w)
}

// hjoin places blocks side by side (each already exactly sized).
func hjoin(blocks ...string) string { return lipgloss.JoinHorizontal(lipgloss.Top, blocks...) }

// vjoin stacks blocks (each already exactly sized).
func vjoin(blocks ...string) string { return lipgloss.JoinVertical(lipgloss.Left, blocks...) }
