package look

import (
	"math"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/linechart"
	"github.com/charmbracelet/lipgloss"
)

// Band is a shaded area of a chart between two edges (a seed group's mean ± sd), drawn
// under the reference lines and the series, one glyph a cell (shades read without colour).
type Band struct {
	Glyph rune
	Style lipgloss.Style
	// At gives the band's edges at x, in the chart's units; false where it has none.
	At func(x float64) (lo, hi float64, ok bool)
}

// Mark is one glyph at a data point, drawn over everything (an event on a curve).
type Mark struct {
	X, Y  float64
	Glyph rune
	Style lipgloss.Style
}

// CursorGlyph draws the cursor line of the dashboard's charts and the comparison view's: a
// dotted rule no series or reference line uses.
const CursorGlyph = '┊'

// Cursor is a vertical line at X over the graph's empty, band and reference cells (a
// scrubbed step); the series are drawn over it.
type Cursor struct {
	X     float64
	Glyph rune
	Style lipgloss.Style
}

// drawBands shades every band column by column, the overlap glyph where two bands cover one
// cell (each band's own glyph otherwise).
func (c Chart) drawBands(lc *linechart.Model, xr, yr Span) {
	if len(c.Bands) == 0 {
		return
	}
	o, gw := lc.Origin(), lc.GraphWidth()
	owner := map[canvas.Point]int{}
	for j, b := range c.Bands {
		for col := range gw {
			x := xr.Lo + float64(col)*(xr.Hi-xr.Lo)/float64(max(gw-1, 1))
			lo, hi, ok := b.At(x)
			if !ok || math.IsNaN(lo) || math.IsNaN(hi) {
				continue
			}
			top := canvasPoint(lc, canvas.Float64Point{X: x, Y: yr.Clamp(hi)}).Y
			bottom := canvasPoint(lc, canvas.Float64Point{X: x, Y: yr.Clamp(lo)}).Y
			for y := top; y <= bottom; y++ {
				p, g := canvas.Point{X: o.X + 1 + col, Y: y}, b.Glyph
				if k, taken := owner[p]; taken && k != j && c.BandOverlap != 0 {
					g = c.BandOverlap
				}
				owner[p] = j
				lc.Canvas.SetCell(p, canvas.NewCellWithStyle(g, b.Style))
			}
		}
	}
}

// drawCursor draws the cursor column over empty, band and reference cells.
func (c Chart) drawCursor(lc *linechart.Model, xr Span) {
	if c.Cursor == nil {
		return
	}
	o := lc.Origin()
	x := canvasPoint(lc, canvas.Float64Point{X: xr.Clamp(c.Cursor.X), Y: lc.ViewMinY()}).X
	for y := o.Y - lc.GraphHeight(); y < o.Y; y++ {
		p := canvas.Point{X: x, Y: y}
		if r := lc.Canvas.Cell(p).Rune; r == 0 || r == ' ' || r == RefGlyph || c.isBandGlyph(r) {
			lc.Canvas.SetCell(p, canvas.NewCellWithStyle(c.Cursor.Glyph, c.Cursor.Style))
		}
	}
}

// isBandGlyph reports whether r shades a band.
func (c Chart) isBandGlyph(r rune) bool {
	if r == c.BandOverlap && r != 0 {
		return true
	}
	for _, b := range c.Bands {
		if b.Glyph == r {
			return true
		}
	}
	return false
}

// drawMarks draws the marks inside the ranges.
func (c Chart) drawMarks(lc *linechart.Model, xr, yr Span) {
	for _, m := range c.Marks {
		if math.IsNaN(m.X) || math.IsNaN(m.Y) {
			continue
		}
		p := canvasPoint(lc, canvas.Float64Point{X: xr.Clamp(m.X), Y: yr.Clamp(m.Y)})
		lc.Canvas.SetCell(p, canvas.NewCellWithStyle(m.Glyph, m.Style))
	}
}

// ZoomRange spans the finite values with a twentieth of their span to spare either side,
// from 0 when the lowest is within a quarter of the span of 0 (a curve that falls towards 0
// keeps it in view) and never below 0: a band at 0.9–1.1 fills the chart instead of its top
// rows. A span under a tenth of the largest value is widened to that, about its middle, so
// that runs which barely differ (all at the context-free level) do not fill the chart with
// their noise.
func ZoomRange(ss ...[]float64) Span {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return Span{0, 1}
	}
	if least := math.Max(math.Abs(hi)/10, 1e-3); hi-lo < least {
		mid := (hi + lo) / 2
		lo, hi = mid-least/2, mid+least/2
	}
	pad := (hi - lo) / 20
	if lo-pad <= 0 || lo < (hi-lo)/4 {
		return Span{0, hi + pad}
	}
	return Span{lo - pad, hi + pad}
}

// FitLogRange spans the finite log10 values with a twentieth of their span to spare either
// side (at least 0.02 decades): unlike LogRange, no half decade at the least, so values
// close together fill the chart.
func FitLogRange(ss ...[]float64) Span {
	lo, hi, ok := finiteExtent(ss...)
	if !ok {
		return Span{-1, 0}
	}
	pad := math.Max((hi-lo)/20, 0.02)
	return Span{lo - pad, hi + pad}
}
