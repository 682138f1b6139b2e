package runpicker

import (
	"cmp"
	"strings"

	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
	"windtunnel/sessions/index"
)

// row is what a run's columns show: ls's cells and, in a sweep's folder, the value of each
// swept flag and the metrics besides bit error (a).
type row struct {
	index.Cells
	set         map[string]string // swept flag → value
	errB, accur string            // bit error (b) and accuracy to 4 decimals, "-" without one
}

// newRow is the run's row, its session relative to wd, its settings from set.
func newRow(r index.Run, wd string, set index.Settings) row {
	rw := row{Cells: r.Cells(wd), errB: r.MetricCell("bit_error_sample"), accur: r.MetricCell("accuracy")}
	if len(set.Flags) > 0 {
		rw.set = map[string]string{}
		for _, f := range set.Flags {
			rw.set[f] = sessions.SafeText(set.Of(r, f))
		}
	}
	return rw
}

// column is one of ls's columns as the picker shows it: its title, its cell of a run, the
// widest it grows to (0: no bound) and the narrowest it shrinks to before a column is left
// out.
type column struct {
	title    string
	cell     func(c row) string
	max, min int
	cutMid   bool // a session: shown without .wtlab, cut in the middle (its folder and its name's end say the most)
	labelled bool // shown only when a run carries labels (as ls)
	value    bool // a swept flag's: it shrinks no narrower than its widest value (up to valueMin), its title cut first
}

// valueMin bounds the narrowest a swept flag's column keeps its widest value whole.
const valueMin = 10

// columns are ls's columns (index.WriteTable), in its order.
var columns = []column{
	{title: "STATE", cell: func(c row) string { return c.State }, max: 19, min: 7},
	{title: "TASK", cell: func(c row) string { return c.Task }, max: 12, min: 9},
	{title: "MODEL", cell: func(c row) string { return c.Model }, max: 12, min: 8},
	{title: "STEP", cell: func(c row) string { return c.Step }, max: 21, min: 8},
	{title: "BIT ERR (a)", cell: func(c row) string { return c.BitError }, max: 11, min: 11},
	{title: "PID", cell: func(c row) string { return c.Pid }, max: 8, min: 8},
	{title: "NAME", cell: func(c row) string { return c.Name }, max: 24, min: 8, labelled: true},
	{title: "TAGS", cell: func(c row) string { return c.Tags }, max: 20, min: 8, labelled: true},
	{title: "SESSION", cell: func(c row) string { return strings.TrimSuffix(c.Session, sessions.Suffix) }, min: 14, cutMid: true},
}

// sweepColumns are the columns of a sweep's folder, whose flags are swept: ls's, with
// each swept flag and then bit error (a), (b) and accuracy in place of bit error (a) alone
// (TensorBoard's HParams table).
func sweepColumns(flags []string) []column {
	var out []column
	for _, c := range columns {
		if c.title != "BIT ERR (a)" {
			out = append(out, c)
			continue
		}
		for _, f := range flags {
			title := sessions.SafeText(f)
			out = append(out, column{title: title, cell: func(c row) string { return cmp.Or(c.set[f], "-") },
				max: 14, min: 4, value: true})
		}
		out = append(out,
			column{title: "ERR (a)", cell: func(c row) string { return c.BitError }, max: 7, min: 7},
			column{title: "ERR (b)", cell: func(c row) string { return c.errB }, max: 7, min: 7},
			column{title: "ACC", cell: func(c row) string { return c.accur }, max: 6, min: 6})
	}
	return out
}

// Narrowing the table: the session shrinks to sessionWide, the pid and then the tags are
// left out (in a sweep's folder the task and the model too, which its flags say), the
// session and the name shrink to sessionMin and nameMin, then every column towards its min
// (the widest first), then the lastDrops are left out.
var (
	firstDrops      = []string{"PID", "TAGS"}
	sweepFirstDrops = []string{"PID", "TAGS", "TASK", "MODEL"}
	lastDrops       = []string{"BIT ERR (a)", "MODEL", "STEP"}
	sweepLastDrops  = []string{"ACC", "ERR (b)", "STEP"}
)

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
// fit; the session takes what is left. flags are a sweep's swept flags (none: ls's columns).
func layout(cells []row, labelled bool, flags []string, w int) ([]column, []int) {
	all, early, late := columns, firstDrops, lastDrops
	if len(flags) > 0 {
		all, early, late = sweepColumns(flags), sweepFirstDrops, sweepLastDrops
	}
	var cols []column
	for _, c := range all {
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
		if c.value {
			v := 0
			for _, cl := range cells {
				v = max(v, ansi.StringWidth(c.cell(cl)))
			}
			cols[i].min = max(c.min, min(v, valueMin))
		}
		widths[i] = max(n, cols[i].min)
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
	drop(early)
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
	drop(late)
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
func tableRow(cl row, cols []column, widths []int, cursor bool) table.Row {
	mark := " "
	if cursor {
		mark = "▸"
	}
	row := table.Row{mark}
	for i, c := range cols {
		s := c.cell(cl)
		if c.cutMid {
			s = midCut(s, widths[i])
		}
		row = append(row, s)
	}
	return row
}
