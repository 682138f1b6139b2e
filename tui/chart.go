package tui

import (
	"math"
	"strconv"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/linechart"
	"github.com/charmbracelet/lipgloss"
)

// series is one line of a chart, drawn with its own glyph so lines stay apart without colour.
type series struct {
	glyph rune
	style lipgloss.Style
	x, y  []float64
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

// lineChart draws the series on an ntcharts linechart of exactly w×h cells, axes and labels
// included. It draws once: call it when the data or the size changed, not on every View.
func lineChart(w, h int, xr, yr span, ss []series, xfmt, yfmt linechart.LabelFormatter) string {
	if w < 10 || h < 4 {
		return fit("", w, h)
	}
	xr, yr = xr.widen(), yr.widen()
	xStep := len(xfmt(0, xr.hi)) + 3
	lc := linechart.New(w, h, xr.lo, xr.hi, yr.lo, yr.hi,
		linechart.WithXYSteps(xStep, 2),
		linechart.WithXLabelFormatter(xfmt),
		linechart.WithYLabelFormatter(yfmt))
	lc.DrawXYAxisAndLabel()
	for _, s := range ss {
		var prev canvas.Float64Point
		have := false
		for i := range s.x {
			if i >= len(s.y) || math.IsNaN(s.y[i]) || math.IsNaN(s.x[i]) {
				have = false
				continue
			}
			p := canvas.Float64Point{X: xr.clamp(s.x[i]), Y: yr.clamp(s.y[i])}
			if have {
				lc.DrawRuneLineWithStyle(prev, p, s.glyph, s.style)
			} else {
				lc.DrawRuneWithStyle(p, s.glyph, s.style)
			}
			prev, have = p, true
		}
	}
	return fit(lc.View(), w, h)
}
