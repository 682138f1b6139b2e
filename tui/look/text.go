package look

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// A box's border takes a cell on either side of its content and a line above and below.
const (
	BorderW = 2
	BorderH = 2
)

// PadLine cuts a line to w cells (ANSI-aware, at a word boundary: see cut) and pads it
// with spaces to exactly w.
func PadLine(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = cut(s, w)
	}
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// cut shortens s (ANSI-aware) to at most w cells ending in " …" after the last whole word
// that fits, so no word is cut; only a first word wider than w is cut within.
func cut(s string, w int) string {
	if w < 3 {
		return ansi.Truncate(s, w, "")
	}
	plain := ansi.Strip(s)
	head := ansi.Strip(ansi.Truncate(s, w-2, ""))
	// The end of head is a word boundary when it ends in a space or a space follows it.
	end := len(head)
	if rest, ok := strings.CutPrefix(plain, head); !ok || !(strings.HasSuffix(head, " ") || strings.HasPrefix(rest, " ")) {
		end = strings.LastIndexByte(head, ' ') + 1
	}
	kept := strings.TrimRight(head[:end], " ")
	if kept == "" {
		return ansi.Truncate(s, w, "…")
	}
	return ansi.Truncate(s, ansi.StringWidth(kept), "") + " …"
}

// CutLeft shortens s (plain text) to at most w cells by dropping its start, marked "…":
// for a path, whose end (the file name) says the most.
func CutLeft(s string, w int) string {
	if ansi.StringWidth(s) <= w || w <= 0 {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && ansi.StringWidth(string(r))+1 > w {
		r = r[1:]
	}
	return "…" + string(r)
}

// FirstFit returns the first of forms (a line said at decreasing length) that fits w
// cells, or the last one when none does.
func FirstFit(w int, forms ...string) string {
	for _, f := range forms {
		if ansi.StringWidth(f) <= w {
			return f
		}
	}
	return forms[len(forms)-1]
}

// FitParts keeps the parts of line (split at sep) that fit w cells, in order, leaving out
// whole parts that do not, and pads it to exactly w; only a first part wider than w is cut.
func FitParts(line, sep string, w int) string {
	parts := strings.Split(line, sep)
	out := parts[0]
	for _, p := range parts[1:] {
		if ansi.StringWidth(out)+ansi.StringWidth(sep)+ansi.StringWidth(p) <= w {
			out += sep + p
		}
	}
	return PadLine(out, w)
}

// FlowParts lays parts out joined by sep in lines of at most w cells, breaking only between
// parts (a part wider than w gets a line of its own).
func FlowParts(parts []string, sep string, w int) []string {
	var lines []string
	cur := ""
	for _, part := range parts {
		switch {
		case cur == "":
			cur = part
		case ansi.StringWidth(cur)+ansi.StringWidth(sep)+ansi.StringWidth(part) <= w:
			cur += sep + part
		default:
			lines = append(lines, cur)
			cur = part
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// Wrap breaks s into lines of at most w cells at spaces (a word longer than w is cut).
func Wrap(s string, w int) []string {
	if w <= 0 || ansi.StringWidth(s) <= w {
		return []string{s}
	}
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case ansi.StringWidth(line)+1+ansi.StringWidth(word) <= w:
			line += " " + word
		default:
			out = append(out, line)
			line = word
		}
	}
	return append(out, line)
}

// Fit makes s exactly w cells wide and h lines high, cutting or padding as needed.
func Fit(s string, w, h int) string {
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
		lines[i] = PadLine(l, w)
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

// Box draws content in a w×h frame with the title in its top edge. A focused box has a
// thick border and a ▶ before its title, so focus shows without colour.
func Box(title, content string, w, h int, focused bool, st Styles) string {
	if w < BorderW || h < BorderH {
		return Fit("", w, h)
	}
	b, bs := borders(focused), st.Border
	label := " " + title + " "
	if focused {
		bs = st.Focus
		label = " ▶ " + title + " "
	}
	inner := w - BorderW
	if ansi.StringWidth(label) > inner-1 {
		label = cut(label, max(inner-1, 0))
	}
	// The edges are single lines in plain styles: wrap them in the styles' sequences
	// (Style.Render works per cell and this runs whenever a pane's content changes).
	bp := PaintOf(bs)
	top := bp.Wrap(b.tl+b.h) + PaintOf(st.Title).Wrap(label)
	top += bp.Wrap(strings.Repeat(b.h, max(inner-1-ansi.StringWidth(label), 0)) + b.tr)
	lines := []string{top}
	body := strings.Split(Fit(content, inner, h-BorderH), "\n")
	side := bp.Wrap(b.v)
	for _, l := range body {
		if h-BorderH <= 0 {
			break
		}
		lines = append(lines, side+l+side)
	}
	lines = append(lines, bp.Wrap(b.bl+strings.Repeat(b.h, inner)+b.br))
	return strings.Join(lines, "\n")
}

// hjoin places blocks of any size side by side, top-aligned and padded (lipgloss).
func hjoin(blocks ...string) string { return lipgloss.JoinHorizontal(lipgloss.Top, blocks...) }

// HCat places blocks side by side. Each must already be exactly sized and all of the same
// height: nothing is measured, so it costs only the copying (it runs on every frame).
func HCat(blocks ...string) string {
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

// VCat stacks blocks, each already exactly sized and of the same width.
func VCat(blocks ...string) string { return strings.Join(blocks, "\n") }
