package overlay

import (
	"strings"

	"windtunnel/tui/look"
)

// panel is one metric's chart, laid out: its title (with several panels), the chart and
// the reference lines it leaves out.
type panel struct {
	title string
	chart look.Chart
	note  string
	w, h  int
}

// panels lays the metrics shown out in w×h cells: one chart; or three side by side from
// 150 columns, else stacked when each gets 8 lines, else side by side when each gets 24
// columns; nil when there is no room. The charts share their x axis column for column
// (one width, y-label width and right margin for all), stacked or side by side.
func (o *Model) panels(w, h int, data [][]overlaySeries, steps []int, at int) []panel {
	shown := o.metric.shown()
	n := len(shown)
	side := n > 1 && (w >= 150 || (h/n < minStacked && w/n >= minSideW))
	pw, ph := w, h
	switch {
	case n > 1 && side:
		pw = (w - (n - 1)) / n
	case n > 1:
		ph = h / n
	}
	titled := n > 1
	ch := ph
	if titled {
		ch--
	}
	if pw < 16 || ch < 4 {
		return nil
	}
	out := make([]panel, n)
	for k, m := range shown {
		c, refs := o.chartSpec(m, data[k], steps, at)
		// The note names the lines out of range, and those in range too where the chart has
		// no room for their labels.
		all := append(append([]look.RefLine(nil), c.Refs...), refs...)
		out[k] = panel{chart: c, w: pw, h: ph, note: refNote(all, c.YR, look.RefMargin(pw, c.Refs) > 0)}
		if titled {
			out[k].title = m.title()
		}
		if !side && n > 1 && k == n-1 {
			out[k].h = h - (n-1)*ph
		}
	}
	if n > 1 {
		lw, margin := 0, 0
		for _, p := range out {
			lw, margin = max(lw, p.chart.LabelWidth(p.chartH())), max(margin, look.RefMargin(p.w, p.chart.Refs))
		}
		for k := range out {
			out[k].chart.LabelW, out[k].chart.Margin = lw, margin
		}
	}
	return out
}

// The panels' layout: stacked charts get minStacked lines each, or stand side by side
// when each gets minSideW columns.
const (
	minStacked = 8
	minSideW   = 24
)

// chartH is the height of the panel's chart, under its title.
func (p panel) chartH() int {
	if p.title != "" {
		return p.h - 1
	}
	return p.h
}

// panelNotes joins the panels' notes on the reference lines they leave out ("(a): ┄ pass
// 0.15 below" with several panels).
func panelNotes(ps []panel) string {
	var parts []string
	for _, p := range ps {
		if p.note == "" {
			continue
		}
		if p.title != "" {
			parts = append(parts, p.title+": "+p.note)
		} else {
			parts = append(parts, p.note)
		}
	}
	return strings.Join(parts, "  ")
}

// drawPanels draws the panels side by side (each one wide) or stacked, in w×h cells.
func drawPanels(ps []panel, w, h int) string {
	blocks := make([]string, len(ps))
	for k, p := range ps {
		ch := p.h
		b := ""
		if p.title != "" {
			b = look.PadLine(p.title, p.w) + "\n"
			ch--
		}
		blocks[k] = b + p.chart.Draw(p.w, ch)
	}
	if len(ps) > 1 && ps[0].w < w {
		gap := look.Fit("", 1, ps[0].h)
		var row []string
		for k, b := range blocks {
			if k > 0 {
				row = append(row, gap)
			}
			row = append(row, b)
		}
		return look.Fit(look.HCat(row...), w, h)
	}
	return look.Fit(look.VCat(blocks...), w, h)
}
