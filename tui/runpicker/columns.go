package runpicker

import (
	"strings"

	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions/index"
)

// column is one of ls's columns as the picker shows it: its title, its cell of a run, the
// widest it grows to (0: no bound) and the narrowest it shrinks to before a column is left
// out.
type column struct {
	title    string
	cell     func(c index.Cells) string
	max, min int
	cutMid   bool // a session: shown without .wtlab, cut in the middle (its folder and its name's end say the most)
	labelled bool // shown only when a run carries labels (as ls)
}

// columns are ls's columns (index.WriteTable), in its order.
var columns = []column{
	{title: "STATE", cell: func(c index.Cells) string { return c.State }, max: 19, min: 7},
	{title: "TASK", cell: func(c index.Cells) string { return c.Task }, max: 12, min: 9},
	{title: "MODEL", cell: func(c index.Cells) string { return c.Model }, max: 12, min: 8},
	{title: "STEP", cell: func(c index.Cells) string { return c.Step }, max: 21, min: 8},
	{title: "BIT ERR (a)", cell: func(c index.Cells) string { return c.BitError }, max: 11, min: 11},
	{title: "PID", cell: func(c index.Cells) string { return c.Pid }, max: 8, min: 8},
	{title: "NAME", cell: func(c index.Cells) string { return c.Name }, max: 24, min: 8, labelled: true},
	{title: "TAGS", cell: func(c index.Cells) string { return c.Tags }, max: 20, min: 8, labelled: true},
	{title: "SESSION", cell: func(c index.Cells) string { return strings.TrimSuffix(c.Session, ".wtlab") }, min: 14, cutMid: true},
}

// Narrowing the table: the session shrinks to sessionWide, the pid and then the tags are
// left out, the session and the name shrink to sessionMin and nameMin, then every column
// towards its min (the widest first), then the bit error, the model and the step are left
// out.
var lastDrops = []string{"BIT ERR (a)", "MODEL", "STEP"}

const (
	sessionWide = 32
	sessionMin  = 18
	nameMin     = 10
)

// pad is the cells a column takes besides its width (the table's cell style pads one on
// the right).
const pad = 1

// markW is the width of the cursor's column ("▸").
const markW = 1

// layout chooses the columns shown in w cells and their widths: each as wide as its title
// and widest cell allow (up to its max), narrowed as the rule above says while they do not
// fit; the session takes what is left.
func layout(cells []index.Cells, labelled bool, w int) ([]column, []int) {
	var cols []column
	for _, c := range columns {
		if !c.labelled || labelled {
			cols = append(cols, c)
		}
	}
	widths := make([]int, len(cols))
	for i, c := range cols {
		n := ansi.StringWidth(c.title)
		for _, cl := range cells {
			n = max(n, ansi.StringWidth(c.cell(cl)))
		}
		if c.max > 0 {
			n = min(n, c.max)
		}
		widths[i] = max(n, c.min)
	}
	total := func() int {
		t := markW + pad
		for _, x := range widths {
			t += x + pad
		}
		return t
	}
	drop := func(names []string) {
		for _, name := range names {
			for i, c := range cols {
				if c.title == name && total() > w {
					cols = append(cols[:i], cols[i+1:]...)
					widths = append(widths[:i], widths[i+1:]...)
					break
				}
			}
		}
	}
	shrink := func(title string, to int) {
		for i, c := range cols {
			if c.title == title && total() > w && widths[i] > to {
				widths[i] -= min(widths[i]-to, total()-w)
			}
		}
	}
	shrink("SESSION", sessionWide)
	drop([]string{"PID", "TAGS"})
	shrink("SESSION", sessionMin)
	shrink("NAME", nameMin)
	for total() > w {
		wide := -1
		for i, c := range cols {
			if widths[i] > c.min && (wide < 0 || widths[i]-c.min > widths[wide]-cols[wide].min) {
				wide = i
			}
		}
		if wide < 0 {
			break
		}
		widths[wide] -= min(widths[wide]-cols[wide].min, total()-w)
	}
	drop(lastDrops)
	last := len(cols) - 1
	widths[last] = max(widths[last]+w-total(), 1) // the session takes the rest, or gives up cells
	return cols, widths
}

// midCut shortens s (plain text) to w cells by cutting out its middle, marked "…": a
// session's folder and the end of its name both stay.
func midCut(s string, w int) string {
	if ansi.StringWidth(s) <= w || w < 3 {
		return ansi.Truncate(s, max(w, 0), "")
	}
	r := []rune(s)
	head := (w - 1) / 2
	tail := w - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// tableColumns are the bubbles table's columns for the layout, the cursor's first.
func tableColumns(cols []column, widths []int) []table.Column {
	out := []table.Column{{Title: "", Width: markW}}
	for i, c := range cols {
		out = append(out, table.Column{Title: c.title, Width: widths[i]})
	}
	return out
}

// tableRow is a run's row for the layout, marked when under the cursor.
func tableRow(cl index.Cells, cols []column, widths []int, cursor bool) table.Row {
	mark := " "
	if cursor {
		mark = "▸"
	}
	row := table.Row{mark}
	for i, c := range cols {
		s := c.cell(cl)
		if c.cutMid {
			s = midCut(strings.TrimSuffix(s, ".wtlab"), widths[i])
		}
		row = append(row, s)
	}
	return row
}
