package overlay

import (
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// overlayGlyphs mark the series' lines, so they stay apart without colour.
var overlayGlyphs = []rune{'•', '∘', '×', '+', '◆', '▲', '■', '○'}

// The chart's glyphs: the seed groups' bands are shaded alternately ░ and ▒, and ▓ where
// two bands cover each other (shades survive NO_COLOR); ┊ is the scrubbing cursor.
const (
	bandLight   = '░'
	bandDark    = '▒'
	bandOverlap = '▓'
	cursorGlyph = look.CursorGlyph
	xAxisTitle  = "step"
)

// seedGlyphs draw the seeds' own curves inside their band, the k-th seed of a group with
// the k-th (the legend names each), so each seed's curve reads apart without colour; seeds
// beyond them are dotted ·.
var seedGlyphs = []rune{'¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'}

// seedGlyph is the glyph of the k-th seed (from 0) of a group.
func seedGlyph(k int) rune {
	if k < len(seedGlyphs) {
		return seedGlyphs[k]
	}
	return '·'
}

// footerH is the keys' line under the chart.
const footerH = 1

// overlaySeries is one series' data in one metric: a run's curve, or a seed group's mean ±
// sd on the union of its seeds' steps and its seeds' own curves.
type overlaySeries struct {
	curve []stepValue
	band  []bandPoint
	seeds [][]stepValue
}

// seriesData computes every series in metric m.
func (o *Model) seriesData(m overlayMetric) []overlaySeries {
	out := make([]overlaySeries, len(o.groups))
	for j, g := range o.groups {
		if !g.band() {
			out[j].curve = curveOf(o.records(g.members[0], m), m)
			continue
		}
		cs := make([][]stepValue, len(g.members))
		for k, i := range g.members {
			cs[k] = curveOf(o.records(i, m), m)
		}
		out[j].band, out[j].seeds = derived.SeedBand(cs), cs
	}
	return out
}

// style is series j's colour: dimmed when another series is highlighted.
func (o *Model) style(j int) lipgloss.Style {
	if o.sel >= 0 && o.sel != j {
		return o.st.Dim
	}
	return o.st.Lines[j%len(o.st.Lines)]
}

// bandGlyph is series j's band shade (the bands alternate between the shades).
func (o *Model) bandGlyph(j int) rune {
	n := 0
	for _, g := range o.groups[:j] {
		if g.band() {
			n++
		}
	}
	if n%2 == 1 {
		return bandDark
	}
	return bandLight
}

// render draws the screen into o.frame, exactly width × height: a title, the legend (a line
// per series, and per seed when shown), a note naming the reference lines the chart leaves
// out, the axis-title and cursor line, the chart (or a chart per metric) and the keys; with
// the help open, the help in place of all but the keys.
func (o *Model) render() {
	w, h := o.width, o.height
	o.help.Width = w
	foot := look.PadLine(look.FitHelp(o.help, o.keys.short(), w), w)
	if o.showHelp {
		bh := h - footerH
		body := ""
		if bh >= look.BorderH+1 {
			iw, ih := w-look.BorderW, bh-look.BorderH
			body = look.Box("Keys — ? or esc closes", look.FullHelp(o.helpGroups(), iw, ih, o.st), w, bh, true, o.st)
		}
		o.frame = overlayFrame([]string{body}, foot, w, h)
		return
	}
	steps := o.steps()
	at, ok := o.cursor.at(steps)
	shown := o.metric.shown()
	data := make([][]overlaySeries, len(shown))
	for k, m := range shown {
		data[k] = o.seriesData(m)
	}
	if !ok {
		lines := append([]string{o.title()}, o.legend(data, at, ok, legendFull)...)
		lines = append(lines, look.Fit(o.st.Dim.Render("no evaluations yet"), w, 1))
		o.frame = overlayFrame(lines, foot, w, h)
		return
	}
	// The richest legend that leaves each chart roomy; else the one that leaves the most.
	var lines []string
	var panels []panel
	ch := 0
	for d := range numDensities {
		ls := append([]string{o.title()}, o.legend(data, at, ok, d)...)
		c := h - len(ls) - footerH - 1 // the axis-title line
		ps := o.panels(w, c, data, steps, at)
		if notes := panelNotes(ps); notes != "" {
			c--
			ps = o.panels(w, c, data, steps, at)
			ls = append(ls, look.PadLine(o.st.Dim.Render(panelNotes(ps)), w))
		}
		if d == 0 || c > ch {
			lines, panels, ch = ls, ps, c
		}
		if roomy(ps) {
			lines, panels, ch = ls, ps, c
			break
		}
	}
	if panels == nil {
		lines = append(lines, look.Fit(o.st.Dim.Render("no room for the chart"), w, max(ch+1, 0)))
	} else {
		lines = append(lines, o.axisLine(w, at), drawPanels(panels, w, ch))
	}
	o.frame = overlayFrame(lines, foot, w, h)
}

// roomy reports whether every chart of the panels has minRoomy lines or more.
func roomy(ps []panel) bool {
	for _, p := range ps {
		if p.chartH() < minRoomy {
			return false
		}
	}
	return len(ps) > 0
}

// minRoomy is the height of a chart whose curves read apart: a denser legend is taken to
// give the charts that much.
const minRoomy = 7

// helpGroups are the keys, then the legend of the runs' numbers (tui.Legend).
func (o *Model) helpGroups() []look.HelpGroup {
	return append(o.keys.groups(), o.legendGroup())
}

// overlayFrame is the lines over the footer, exactly w × h: the footer stays in view when
// the lines do not fit.
func overlayFrame(lines []string, foot string, w, h int) string {
	body := strings.Split(strings.Join(lines, "\n"), "\n")
	body = body[:min(len(body), max(h-footerH, 0))]
	return look.Fit(strings.Join(append(body, foot), "\n"), w, h)
}

// chartSpec is metric m's chart of the series: the seed groups' bands, the reference lines
// (Bayes at 0 on a linear axis from 0, the pass line on (a), the context-free level on (a)
// and (b)), the cursor line when scrubbing, the seeds' own curves when shown, the lines (the
// highlighted series, else the first, on top; smoothed by the moving average when one is
// set) and the heads switched off; over steps, or over wall-clock time (x); with the
// reference lines, in the chart's units, it leaves out of its y range.
func (o *Model) chartSpec(m overlayMetric, data []overlaySeries, steps []int, at int) (look.Chart, []look.RefLine) {
	tr := func(v float64) float64 { return v }
	if o.log {
		tr = func(v float64) float64 { return math.Log10(math.Max(v, look.LogFloor)) }
	}
	var refs []look.RefLine
	if !o.log && o.fromZero {
		refs = append(refs, look.RefLine{Y: 0, Tick: "0", Label: "Bayes"})
	}
	if m == metricA && o.passLine() {
		refs = append(refs, look.RefLine{Y: tr(derived.PassBits), Tick: look.Num(derived.PassBits, 2), Label: "pass"})
	}
	if m == metricA || m == metricB {
		for _, cf := range o.contextFree() {
			refs = append(refs, look.RefLine{Y: tr(cf), Tick: look.Num(cf, 2), Label: "no context"})
		}
	}
	var ys []float64
	for _, d := range data {
		for _, p := range d.curve {
			ys = append(ys, tr(p.V))
		}
		for _, p := range d.band {
			ys = append(ys, tr(p.Hi), tr(math.Max(p.Lo, 0)))
		}
		if o.seeds {
			for _, c := range d.seeds {
				for _, p := range c {
					ys = append(ys, tr(p.V))
				}
			}
		}
	}
	c := look.Chart{XInt: !o.wallAxis(), YLog: o.log, XTitle: o.xTitle(), RefStyle: o.st.Dim, BandOverlap: bandOverlap}
	switch {
	case o.log:
		c.YR = look.FitLogRange(ys)
	case o.fromZero:
		levels := make([]float64, len(refs))
		for i, r := range refs {
			levels[i] = r.Y
		}
		c.YR = look.LinearRange(ys, levels)
	default:
		c.YR = look.ZoomRange(ys)
	}
	var out []look.RefLine
	for _, r := range refs {
		if r.Y >= c.YR.Lo && r.Y <= c.YR.Hi {
			c.Refs = append(c.Refs, r)
		} else {
			out = append(out, r)
		}
	}
	order := o.drawOrder()
	for _, j := range order {
		if b := data[j].band; o.groups[j].band() {
			xb := o.bandX(j, b)
			c.Bands = append(c.Bands, look.Band{Glyph: o.bandGlyph(j), Style: o.style(j), At: func(x float64) (float64, float64, bool) {
				lo, hi, ok := xb.at(x)
				return tr(math.Max(lo, 0)), tr(hi), ok
			}})
		}
	}
	if o.seeds {
		for _, j := range order {
			for k, sc := range data[j].seeds {
				i := o.groups[j].members[k]
				c.Series = append(c.Series, curveSeries(o.smoothed(sc), func(s float64) float64 { return o.runX(i, s) }, tr, seedGlyph(k), o.style(j)))
			}
		}
	}
	for _, j := range order {
		d := data[j]
		line := d.curve
		if o.groups[j].band() {
			line = make([]stepValue, len(d.band))
			for k, p := range d.band {
				line[k] = stepValue{Step: p.Step, V: p.Mean}
			}
		}
		line = o.smoothed(line)
		xf := func(s float64) float64 { return o.xOf(j, s) }
		c.Series = append(c.Series, curveSeries(line, xf, tr, overlayGlyphs[j%len(overlayGlyphs)], o.style(j)))
		for _, h := range o.groupHeads(j) {
			if v, ok := derived.CurveAt(line, float64(h)); ok {
				c.Marks = append(c.Marks, look.Mark{X: xf(float64(h)), Y: tr(v), Glyph: headGlyph, Style: o.st.Warn})
			}
		}
	}
	c.XR = look.Span{Lo: float64(steps[0]), Hi: float64(steps[len(steps)-1])}.Widen()
	if o.wallAxis() {
		c.XR = xSpan(c.Series)
	}
	if !o.cursor.follow {
		j := max(o.sel, 0)
		c.Cursor = &look.Cursor{X: o.xOf(j, float64(at)), Glyph: cursorGlyph, Style: o.st.Focus}
	}
	return c, out
}

// xSpan is the range of the series' x values, made non-empty.
func xSpan(ss []look.Series) look.Span {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, x := range s.X {
			if !math.IsNaN(x) {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return look.Span{Lo: 0, Hi: 1}
	}
	return look.Span{Lo: lo, Hi: hi}.Widen()
}

// curveSeries is a curve as a chart series in the chart's units: x from its steps by xf,
// y by tr (non-finite values left as gaps).
func curveSeries(c []stepValue, xf, tr func(float64) float64, glyph rune, st lipgloss.Style) look.Series {
	s := look.Series{Glyph: glyph, Style: st, X: make([]float64, len(c)), Y: make([]float64, len(c))}
	for k, p := range c {
		s.X[k], s.Y[k] = xf(float64(p.Step)), math.NaN()
		if finiteValue(p.V) {
			s.Y[k] = tr(p.V)
		}
	}
	return s
}

// groupHeads is the steps at which a head was switched off in series j's runs.
func (o *Model) groupHeads(j int) []int {
	var out []int
	for _, i := range o.groups[j].members {
		for _, h := range o.heads[i] {
			out = append(out, h.step)
		}
	}
	return sortedUnique(out)
}

// drawOrder lists the series from bottom to top: the last first, the first on top, the
// highlighted one over all.
func (o *Model) drawOrder() []int {
	var order []int
	for j := len(o.groups) - 1; j >= 0; j-- {
		if j != o.sel {
			order = append(order, j)
		}
	}
	if o.sel >= 0 && o.sel < len(o.groups) {
		order = append(order, o.sel)
	}
	return order
}
