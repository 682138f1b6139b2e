package tui

import (
	"fmt"
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
	// The edges are single lines in plain styles: wrap them in the styles' sequences
	// (Style.Render works per cell and this runs whenever a pane's content changes).
	bp := paintOf(bs)
	top := bp.wrap(b.tl+b.h) + paintOf(st.title).wrap(label)
	top += bp.wrap(strings.Repeat(b.h, max(inner-1-ansi.StringWidth(label), 0)) + b.tr)
	lines := []string{top}
	body := strings.Split(fit(content, inner, h-2), "\n")
	side := bp.wrap(b.v)
	for _, l := range body {
		if h-2 <= 0 {
			break
		}
		lines = append(lines, side+l+side)
	}
	lines = append(lines, bp.wrap(b.bl+strings.Repeat(b.h, inner)+b.br))
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

// hjoin places blocks of any size side by side, top-aligned and padded (lipgloss).
func hjoin(blocks ...string) string { return lipgloss.JoinHorizontal(lipgloss.Top, blocks...) }

// hcat places blocks side by side. Each must already be exactly sized and all of the same
// height: nothing is measured, so it costs only the copying (it runs on every frame).
func hcat(blocks ...string) string {
	if len(blocks) == 1 {
		return blocks[0]
	}
	lines := make([][]string, len(blocks))
	n, size := 0, 0
	for i, b := range blocks {
		lines[i] = strings.Split(b, "\n")
		n = max(n, len(lines[i]))
		size += len(b)
	}
	var sb strings.Builder
	sb.Grow(size + n)
	for r := range n {
		if r > 0 {
			sb.WriteByte('\n')
		}
		for _, ls := range lines {
			if r < len(ls) {
				sb.WriteString(ls[r])
			}
		}
	}
	return sb.String()
}

// vcat stacks blocks, each already exactly sized and of the same width.
func vcat(blocks ...string) string { return strings.Join(blocks, "\n") }

// page is one screen of the grid layout: four panes, by index into the root's panes, in the
// slots top-left, bottom-left, top-right, bottom-right. The run pane is on every page.
type page struct {
	name  string
	panes [4]int
	first int // the pane focused when the page is opened with ] or [
}

// pages are the grid's screens; in tabs mode they are the groups ] and [ jump between.
var pages = []page{
	{name: "Training", panes: [4]int{0, 3, 1, 2}, first: 1},
	{name: "Geometry", panes: [4]int{0, 4, 5, 6}, first: 4},
}

// pageOf returns the page holding pane i, or -1 when every page has it (the run pane).
func pageOf(i int) int {
	found := -1
	for p, pg := range pages {
		for _, j := range pg.panes {
			if j == i {
				if found >= 0 {
					return -1
				}
				found = p
				break
			}
		}
	}
	return found
}

// rect is the outer size of a box.
type rect struct{ w, h int }

// gridRects returns the outer sizes of the four slots of a page filling w×h: a left column
// of 2/5 of the width with the run pane (its text and a sparkline) over the rest, and a
// right column split in half.
func gridRects(w, h int) [4]rect {
	lw := w * 2 / 5
	runH := min(runLines+2+4, h/2)
	rh := h / 2
	return [4]rect{{lw, runH}, {lw, h - runH}, {w - lw, rh}, {w - lw, h - rh}}
}

// pageBar names the pages, the shown one marked [like this], and the keys that switch.
func pageBar(cur, w int, st styles) string {
	var parts []string
	for i, pg := range pages {
		label := fmt.Sprintf("%d %s", i+1, pg.name)
		if i == cur {
			parts = append(parts, st.tabActive.Render("["+label+"]"))
		} else {
			parts = append(parts, st.tab.Render(" "+label+" "))
		}
	}
	return padLine("page "+strings.Join(parts, st.dim.Render("│"))+st.dim.Render("  ] [ switch pages · 1–7 panes"), w)
}

// tabBarWidth is the width tabBar needs for titles.
func tabBarWidth(titles []string) int {
	n := len(titles) - 1 // separators
	for _, t := range titles {
		n += ansi.StringWidth(t) + 2
	}
	return n
}
