package tui

import (
	"math"
	"strconv"
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/linechart"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// series is one line of a chart, drawn with its own glyph so lines stay apart without
// colour; dots draws its points alone, unjoined (a scatter).
type series struct {
	glyph rune
	style lipgloss.Style
	x, y  []float64
	dots  bool
}

// span is a closed value range of an axis.
type span struct{ lo, hi float64 }

// widen returns the range made non-empty.
func (s span) widen() span {
	if !(s.hi > s.lo) {
		return span{s.lo, s.lo + 1}
	}
	return s
}

// clamp returns v inside the range.
func (s span) clamp(v float64) float64 { return math.Min(math.Max(v, s.lo), s.hi) }

// intLabels formats axis values as whole numbers (steps, positions).
func intLabels(_ int, v float64) string { return strconv.Itoa(int(math.Round(v))) }

// valueLabels formats axis values with two significant digits.
func valueLabels(_ int, v float64) string { return fshort(v) }

// powLabels formats a log10 axis as the value 10^v.
func powLabels(_ int, v float64) string { return fshort(math.Pow(10, v)) }

// refGlyph draws reference lines: a dashed rule that no series uses, so it reads without
// colour.
const refGlyph = '┄'

// refLine is a horizontal reference line at y (in the chart's units, log10 on a log axis):
// its value is ticked on the y axis (tick, e.g. "1.11") and its name written in the chart's
// right margin (label, e.g. "pass").
type refLine struct {
	y           float64
	tick, label string
}

// overlap is the glyph drawn where series a and b (indices into the chart's series) fall on
// one cell, so that neither hides the other.
type overlap struct {
	a, b  int
	glyph rune
	style lipgloss.Style
}

// chartSpec is one line chart: ranges, series (drawn in order, the last on top), axis
// titles, reference lines and the glyphs of coinciding series.
type chartSpec struct {
	xr, yr         span
	series         []series
	xfmt, yfmt     linechart.LabelFormatter
	xStep          int    // columns between x labels (0: the widest label and 3)
	xTitle, yTitle string // e.g. "step" and "bits"
	refs           []refLine
	overlaps       []overlap
	refStyle       lipgloss.Style
}

// minChartW is the least width a chart is drawn at (narrower: blank), and a chart needs 4
// lines: two of graph over the x axis and its labels.
const minChartW = 10

// lineChart draws the series on a plain chart of exactly w×h cells, axes and labels
// included, without titles or reference lines.
func lineChart(w, h int, xr, yr span, ss []series, xfmt, yfmt linechart.LabelFormatter) string {
	return chartSpec{xr: xr, yr: yr, series: ss, xfmt: xfmt, yfmt: yfmt}.draw(w, h)
}

// draw renders the chart in exactly w×h cells: the y axis' title on the first line, then
// the ntcharts linechart with the x axis' title at the right end of its label row, and the
// reference lines' labels in a right margin when there are any and it leaves room. It
// draws once: call it when the data or the size changed, not on every View.
func (c chartSpec) draw(w, h int) string {
	titled := c.yTitle != ""
	ch := h
	if titled {
		ch--
	}
	if w < minChartW || ch < 4 {
		return fit("", w, h)
	}
	margin := refMargin(w, c.refs)
	cw := w - margin
	xr, yr := c.xr.widen(), c.yr.widen()
	xStep := c.xStep
	if xStep == 0 {
		xStep = len(c.xfmt(0, xr.hi)) + 3
	}
	// ntcharts sizes the y labels' column from its formatter: blanks as wide as the widest
	// label drawYTicks writes.
	ticks := c.tickLabels(yr, ch-2)
	lw := 0
	for _, t := range ticks {
		lw = max(lw, len(t))
	}
	for _, r := range c.refs {
		lw = max(lw, len(r.tick))
	}
	blank := strings.Repeat(" ", lw)
	lc := linechart.New(cw, ch, xr.lo, xr.hi, yr.lo, yr.hi,
		linechart.WithXYSteps(xStep, 2),
		linechart.WithXLabelFormatter(c.xfmt),
		linechart.WithYLabelFormatter(func(int, float64) string { return blank }))
	lc.DrawXYAxisAndLabel()
	labels, refRows := c.drawRefs(&lc, yr)
	c.drawYTicks(&lc, ticks, refRows)
	c.drawSeries(&lc, xr, yr)

	rows := strings.Split(lc.View(), "\n")
	for i := range rows {
		rows[i] = padLine(rows[i], cw)
		if margin > 0 {
			rows[i] += padLine(" "+labels[i], margin)
		}
	}
	if c.xTitle != "" && len(rows) > 0 {
		last := len(rows) - 1
		rows[last] = withEndTitle(ansi.Strip(rows[last]), c.xTitle, w)
	}
	out := strings.Join(rows, "\n")
	if titled {
		out = padLine(c.yTitle, w) + "\n" + out
	}
	return fit(out, w, h)
}

// refMargin is the width of the reference lines' labels right of a chart w cells wide: the
// longest label and a blank, or 0 when that would leave the chart too narrow (the lines
// stay, without labels: the caller names them in its legend).
func refMargin(w int, refs []refLine) int {
	m := 0
	for _, r := range refs {
		m = max(m, ansi.StringWidth(r.label)+1)
	}
	if m > 0 && w-m < 3*minChartW {
		return 0
	}
	return m
}

// canvasPoint is where ntcharts draws the data point f: scaled to the graph, then moved
// off the axes (as DrawRuneWithStyle does).
func canvasPoint(lc *linechart.Model, f canvas.Float64Point) canvas.Point {
	p := canvas.CanvasPointFromFloat64Point(lc.Origin(), lc.ScaleFloat64Point(f))
	p.X++
	p.Y--
	return p
}

// drawRefs draws the reference lines across the graph (before the series, which are drawn
// over them), and returns the margin label of every canvas row and the row of every line
// (−1: outside the range). A line that rounds to a row already taken moves up one row, so
// each keeps its own label.
func (c chartSpec) drawRefs(lc *linechart.Model, yr span) ([]string, []int) {
	labels := make([]string, lc.Height())
	rows := make([]int, len(c.refs))
	taken := map[int]bool{}
	o := lc.Origin()
	for i, r := range c.refs {
		rows[i] = -1
		if math.IsNaN(r.y) || r.y < yr.lo || r.y > yr.hi {
			continue
		}
		row := canvasPoint(lc, canvas.Float64Point{X: lc.ViewMinX(), Y: r.y}).Y
		for taken[row] && row > 0 {
			row--
		}
		taken[row], rows[i] = true, row
		for x := o.X + 1; x < o.X+1+lc.GraphWidth(); x++ {
			lc.Canvas.SetCell(canvas.Point{X: x, Y: row}, canvas.NewCellWithStyle(refGlyph, c.refStyle))
		}
		if row >= 0 && row < len(labels) {
			labels[row] = r.label
		}
	}
	return labels, rows
}

// tickLabels are the y labels of a graph gh rows high, by data row from the bottom ("" for
// none): every other row from the top, a repeated label left out. Unlike ntcharts' own
// labels (a row off the data: it draws the lowest value a row above the axis), each sits on
// the row that values equal to it are drawn on.
func (c chartSpec) tickLabels(yr span, gh int) []string {
	if gh < 2 {
		return nil
	}
	ticks := make([]string, gh)
	last := ""
	for k := gh - 1; k >= 0; k -= 2 {
		if s := c.yfmt(0, yr.lo+float64(k)*(yr.hi-yr.lo)/float64(gh-1)); s != last {
			ticks[k], last = s, s
		}
	}
	return ticks
}

// drawYTicks replaces ntcharts' y labels with the reference lines' values, ticked ┤, and the
// tick labels of the rows not next to one of those.
func (c chartSpec) drawYTicks(lc *linechart.Model, ticks []string, refRows []int) {
	o := lc.Origin()
	lw := o.X
	for y := 0; y <= o.Y; y++ {
		for x := range lw {
			lc.Canvas.SetCell(canvas.Point{X: x, Y: y}, canvas.Cell{})
		}
	}
	put := func(row int, s string) bool {
		if len(s) > lw || row < 0 || row >= o.Y {
			return false
		}
		lc.Canvas.SetStringWithStyle(canvas.Point{X: lw - len(s), Y: row}, s, lc.LabelStyle)
		return true
	}
	near := func(row int) bool {
		for _, r := range refRows {
			if r >= 0 && row >= r-1 && row <= r+1 {
				return true
			}
		}
		return false
	}
	for i, r := range c.refs {
		if row := refRows[i]; row >= 0 && put(row, r.tick) {
			lc.Canvas.SetCell(canvas.Point{X: o.X, Y: row}, canvas.NewCellWithStyle('┤', lc.AxisStyle))
		}
	}
	for k, s := range ticks {
		if row := o.Y - 1 - k; s != "" && !near(row) {
			put(row, s)
		}
	}
}

// drawSeries draws every series as glyph lines between its points, and the overlap glyphs
// where two series share a cell.
func (c chartSpec) drawSeries(lc *linechart.Model, xr, yr span) {
	cw, ch := lc.Width(), lc.Height()
	owners := make([]uint32, cw*ch) // bit i: series i drew the cell
	for i, s := range c.series {
		var prev canvas.Point
		have := false
		set := func(p canvas.Point) {
			if p.X < 0 || p.Y < 0 || p.X >= cw || p.Y >= ch {
				return
			}
			lc.Canvas.SetCell(p, canvas.NewCellWithStyle(s.glyph, s.style))
			if i < 32 {
				owners[p.Y*cw+p.X] |= 1 << i
			}
		}
		for j := range s.x {
			if j >= len(s.y) || math.IsNaN(s.y[j]) || math.IsNaN(s.x[j]) {
				have = false
				continue
			}
			p := canvasPoint(lc, canvas.Float64Point{X: xr.clamp(s.x[j]), Y: yr.clamp(s.y[j])})
			if have && !s.dots {
				for _, q := range graph.GetLinePoints(prev, p) {
					set(q)
				}
			} else {
				set(p)
			}
			prev, have = p, true
		}
	}
	for _, o := range c.overlaps {
		both := uint32(1)<<o.a | uint32(1)<<o.b
		for k, m := range owners {
			if m&both == both {
				lc.Canvas.SetCell(canvas.Point{X: k % cw, Y: k / cw}, canvas.NewCellWithStyle(o.glyph, o.style))
			}
		}
	}
}

// withEndTitle writes title at the right end of the plain label row (w cells), blanking
// the tick labels it would run into, with a blank before it.
func withEndTitle(row, title string, w int) string {
	r := []rune(padLine(row, w))
	tw := len([]rune(title))
	start := len(r) - tw
	if start < 1 {
		return padLine(row, w)
	}
	x := start - 1
	for x > 0 && r[x] != ' ' {
		x-- // back to the blank before the label the title runs into
	}
	for i := x; i < len(r); i++ {
		r[i] = ' '
	}
	copy(r[start:], []rune(title))
	return string(r)
}
