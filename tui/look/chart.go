package look

import (
	"math"
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/linechart"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/diagnostics/ticks"
)

// Series is one line of a chart, drawn with its own glyph so lines stay apart without
// colour; Dots draws its points alone, unjoined (a scatter).
type Series struct {
	Glyph rune
	Style lipgloss.Style
	X, Y  []float64
	Dots  bool
}

// Span is a closed value range of an axis.
type Span struct{ Lo, Hi float64 }

// Widen returns the range made non-empty.
func (s Span) Widen() Span {
	if !(s.Hi > s.Lo) {
		return Span{s.Lo, s.Lo + 1}
	}
	return s
}

// Clamp returns v inside the range.
func (s Span) Clamp(v float64) float64 { return math.Min(math.Max(v, s.Lo), s.Hi) }

// LogFloor is the smallest value plotted on a log scale (bits).
const LogFloor = 1e-4

// RefGlyph draws reference lines: a dashed rule that no series uses, so it reads without
// colour.
const RefGlyph = '┄'

// RefLine is a horizontal reference line at Y (in the chart's units, log10 on a log axis):
// its value is ticked on the y axis (Tick, e.g. "1.11") and its name written in the chart's
// right margin (Label, e.g. "pass").
type RefLine struct {
	Y           float64
	Tick, Label string
}

// Overlap is the glyph drawn where series A and B (indices into the chart's series) fall on
// one cell, so that neither hides the other.
type Overlap struct {
	A, B  int
	Glyph rune
	Style lipgloss.Style
}

// Chart is one line chart: ranges, series (drawn in order, the last on top), axis titles,
// reference lines, the glyphs of coinciding series, and optionally shaded bands (under the
// reference lines), a cursor column (under the series) and marks (over everything). Both
// axes are labelled at round values (package ticks, the figures' rule): 1, 2 or 5 × 10^k
// apart, as many as stand apart, each on the row or column where values equal to it are
// drawn.
type Chart struct {
	XR, YR Span
	Series []Series
	// XInt marks an x axis of whole values (steps, positions): integer labels only. YLog
	// marks Y values that are log10 of what the axis shows: labels at 1-2-5 × 10^k.
	XInt, YLog     bool
	XTitle, YTitle string // e.g. "step" and "bits"
	Refs           []RefLine
	Overlaps       []Overlap
	RefStyle       lipgloss.Style
	Bands          []Band
	BandOverlap    rune // the glyph where two bands cover one cell (0: the later band's)
	Cursor         *Cursor
	Marks          []Mark
	// LabelW and Margin are the least width of the y labels' column and of the right
	// margin: charts drawn over one another at one width with the same LabelW and Margin
	// (the largest of their LabelWidth and RefMargin) share their x axis, column for column.
	LabelW, Margin int
}

// minChartW is the least width a chart is drawn at (narrower: blank), and a chart needs 4
// lines: two of graph over the x axis and its labels.
const minChartW = 10

// Draw renders the chart in exactly w×h cells: the y axis' title on the first line, then
// the ntcharts linechart with the x axis' title at the right end of its label row, and the
// reference lines' labels in a right margin when there are any and it leaves room. It
// draws once: call it when the data or the size changed, not on every View.
func (c Chart) Draw(w, h int) string {
	titled := c.YTitle != ""
	ch := h
	if titled {
		ch--
	}
	if w < minChartW || ch < 4 {
		return Fit("", w, h)
	}
	labelled := RefMargin(w, c.Refs) > 0 // else the lines go unlabelled (the caller names them)
	margin := max(RefMargin(w, c.Refs), min(c.Margin, w-minChartW))
	cw := w - margin
	xr, yr := c.XR.Widen(), c.YR.Widen()
	// ntcharts sizes the y labels' column from its formatter: blanks as wide as the widest
	// label drawYTicks writes. Its own labels are left blank: drawYTicks and drawXTicks
	// write round ones.
	yt := c.tickLabels(yr, ch-2)
	blank := strings.Repeat(" ", max(c.labelWidth(yt), c.LabelW))
	lc := linechart.New(cw, ch, xr.Lo, xr.Hi, yr.Lo, yr.Hi,
		linechart.WithXYSteps(1, 2),
		linechart.WithXLabelFormatter(func(int, float64) string { return "" }),
		linechart.WithYLabelFormatter(func(int, float64) string { return blank }))
	lc.DrawXYAxisAndLabel()
	c.drawXTicks(&lc, xr, yr)
	c.drawBands(&lc, xr, yr)
	labels, refRows := c.drawRefs(&lc, yr)
	c.drawYTicks(&lc, yt, refRows)
	c.drawCursor(&lc, xr)
	c.drawSeries(&lc, xr, yr)
	c.drawMarks(&lc, xr, yr)

	rows := strings.Split(lc.View(), "\n")
	for i := range rows {
		rows[i] = PadLine(rows[i], cw)
		switch {
		case margin > 0 && labelled:
			rows[i] += PadLine(" "+labels[i], margin)
		case margin > 0:
			rows[i] += strings.Repeat(" ", margin)
		}
	}
	if c.XTitle != "" && len(rows) > 0 {
		last := len(rows) - 1
		rows[last] = withEndTitle(ansi.Strip(rows[last]), c.XTitle, w)
	}
	out := strings.Join(rows, "\n")
	if titled {
		out = PadLine(c.YTitle, w) + "\n" + out
	}
	return Fit(out, w, h)
}

// AlignX makes the charts cs, drawn over one another at width w (cs[i] hs[i] lines high),
// share their x axis column for column: each gets the widest y labels' column and the
// widest right margin of them all (a chart with reference lines' labels has one, the
// others not).
func AlignX(w int, cs []*Chart, hs []int) {
	lw, margin := 0, 0
	for i, c := range cs {
		lw, margin = max(lw, c.LabelWidth(hs[i])), max(margin, RefMargin(w, c.Refs))
	}
	for _, c := range cs {
		c.LabelW, c.Margin = max(c.LabelW, lw), max(c.Margin, margin)
	}
}

// LabelWidth is the width of the y labels' column of the chart drawn h lines high.
func (c Chart) LabelWidth(h int) int {
	if c.YTitle != "" {
		h--
	}
	return c.labelWidth(c.tickLabels(c.YR.Widen(), h-2))
}

// labelWidth is the width the tick labels and the reference lines' ticks need.
func (c Chart) labelWidth(ticks []string) int {
	lw := 0
	for _, t := range ticks {
		lw = max(lw, len(t))
	}
	for _, r := range c.Refs {
		lw = max(lw, len(r.Tick))
	}
	return lw
}

// RefMargin is the width of the reference lines' labels right of a chart w cells wide: the
// longest label and a blank, or 0 when that would leave the chart too narrow (the lines
// stay, without labels: the caller names them in its legend).
func RefMargin(w int, refs []RefLine) int {
	m := 0
	for _, r := range refs {
		m = max(m, ansi.StringWidth(r.Label)+1)
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
// (−1: outside the range, or sharing the row of an earlier line). Each line lies on the row
// that series values equal to it are drawn on; lines that round to one row share it, its
// label naming them all ("Bayes/pass") and its tick the first's value, so no line is moved
// onto a row whose values are not its own.
func (c Chart) drawRefs(lc *linechart.Model, yr Span) ([]string, []int) {
	labels := make([]string, lc.Height())
	rows := make([]int, len(c.Refs))
	taken := map[int]bool{}
	o := lc.Origin()
	for i, r := range c.Refs {
		rows[i] = -1
		if math.IsNaN(r.Y) || r.Y < yr.Lo || r.Y > yr.Hi {
			continue
		}
		row := canvasPoint(lc, canvas.Float64Point{X: lc.ViewMinX(), Y: r.Y}).Y
		if row < 0 || row >= len(labels) {
			continue
		}
		if taken[row] {
			labels[row] += "/" + r.Label
			continue
		}
		taken[row], rows[i] = true, row
		for x := o.X + 1; x < o.X+1+lc.GraphWidth(); x++ {
			lc.Canvas.SetCell(canvas.Point{X: x, Y: row}, canvas.NewCellWithStyle(RefGlyph, c.RefStyle))
		}
		labels[row] = r.Label
	}
	return labels, rows
}

// tickLabels are the y labels of a graph gh rows high, by data row from the bottom ("" for
// none): round values (ticks.Linear, or ticks.Log on a log axis), about one every other
// row, each on the row that values equal to it are drawn on (unlike ntcharts' own labels,
// a row off the data), none on the row next to another's.
func (c Chart) tickLabels(yr Span, gh int) []string {
	if gh < 2 {
		return nil
	}
	out := make([]string, gh)
	var ts []ticks.Tick
	if c.YLog {
		ts = ticks.Log(math.Pow(10, yr.Lo), math.Pow(10, yr.Hi))
	} else {
		ts = ticks.Linear(yr.Lo, yr.Hi, max(gh/2, 2), false)
	}
	prev := -2
	for _, t := range ticks.Labelled(ts) { // ascending
		v := t.Value
		if c.YLog {
			v = math.Log10(v)
		}
		k := int(math.Round((v - yr.Lo) / (yr.Hi - yr.Lo) * float64(gh-1)))
		if k < 0 || k >= gh || k-prev < 2 {
			continue
		}
		out[k], prev = t.Label, k
	}
	return out
}

// drawXTicks writes the x axis' labels under it: round values (ticks.Linear; whole ones on
// an XInt axis), as many as stand apart, each starting in the column where values equal
// to it are drawn (the last ending at the chart's edge where it would run past).
func (c Chart) drawXTicks(lc *linechart.Model, xr, yr Span) {
	o := lc.Origin()
	row := o.Y + 1
	if row >= lc.Height() {
		return
	}
	// As many labels as leave three blanks after the widest of them.
	gw := lc.GraphWidth()
	var labels []ticks.Tick
	for n := max(gw/4, 2); n >= 2; n-- {
		labels = ticks.Labelled(ticks.Linear(xr.Lo, xr.Hi, n, c.XInt))
		lw := 1
		for _, t := range labels {
			lw = max(lw, len(t.Label))
		}
		if len(labels)*(lw+3) <= gw+3 {
			break
		}
	}
	next := 0
	for _, t := range labels {
		x := canvasPoint(lc, canvas.Float64Point{X: t.Value, Y: yr.Lo}).X
		x = min(x, lc.Width()-len(t.Label)) // the last ends at the edge
		if x < next {
			continue
		}
		lc.Canvas.SetStringWithStyle(canvas.Point{X: x, Y: row}, t.Label, lc.LabelStyle)
		next = x + len(t.Label) + 1
	}
}

// drawYTicks replaces ntcharts' y labels with the reference lines' values, ticked ┤, and the
// tick labels of the rows not next to one of those.
func (c Chart) drawYTicks(lc *linechart.Model, ticks []string, refRows []int) {
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
	for i, r := range c.Refs {
		if row := refRows[i]; row >= 0 && put(row, r.Tick) {
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
func (c Chart) drawSeries(lc *linechart.Model, xr, yr Span) {
	cw, ch := lc.Width(), lc.Height()
	owners := make([]uint32, cw*ch) // bit i: series i drew the cell
	for i, s := range c.Series {
		var prev canvas.Point
		have := false
		set := func(p canvas.Point) {
			if p.X < 0 || p.Y < 0 || p.X >= cw || p.Y >= ch {
				return
			}
			lc.Canvas.SetCell(p, canvas.NewCellWithStyle(s.Glyph, s.Style))
			if i < 32 {
				owners[p.Y*cw+p.X] |= 1 << i
			}
		}
		for j := range s.X {
			if j >= len(s.Y) || math.IsNaN(s.Y[j]) || math.IsNaN(s.X[j]) {
				have = false
				continue
			}
			p := canvasPoint(lc, canvas.Float64Point{X: xr.Clamp(s.X[j]), Y: yr.Clamp(s.Y[j])})
			if have && !s.Dots {
				for _, q := range graph.GetLinePoints(prev, p) {
					set(q)
				}
			} else {
				set(p)
			}
			prev, have = p, true
		}
	}
	for _, o := range c.Overlaps {
		both := uint32(1)<<o.A | uint32(1)<<o.B
		for k, m := range owners {
			if m&both == both {
				lc.Canvas.SetCell(canvas.Point{X: k % cw, Y: k / cw}, canvas.NewCellWithStyle(o.Glyph, o.Style))
			}
		}
	}
}

// withEndTitle writes title at the right end of the plain label row (w cells), blanking
// the tick labels it would run into, with a blank before it.
func withEndTitle(row, title string, w int) string {
	r := []rune(PadLine(row, w))
	tw := len([]rune(title))
	start := len(r) - tw
	if start < 1 {
		return PadLine(row, w)
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

// LinearRange is [0, 1.1·max] over the finite values.
func LinearRange(ss ...[]float64) Span {
	hi := 0.0
	for _, s := range ss {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				hi = math.Max(hi, v)
			}
		}
	}
	if hi <= 0 {
		hi = 1
	}
	return Span{0, hi * 1.1}
}

// LogRange spans the finite log10 values with a tenth of a decade to spare.
func LogRange(ss ...[]float64) Span {
	lo, hi, ok := finiteExtent(ss...)
	if !ok {
		return Span{-1, 0}
	}
	return Span{lo - 0.1, math.Max(hi, lo+0.5) + 0.1}
}

// finiteExtent is the least and greatest finite value of ss; ok is false when there is none.
func finiteExtent(ss ...[]float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return lo, hi, !math.IsInf(lo, 0)
}
