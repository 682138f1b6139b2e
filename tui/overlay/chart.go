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
	cursorGlyph = '┊'
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
			out[j].curve = curveOf(o.curves[g.members[0]], m)
			continue
		}
		cs := make([][]stepValue, len(g.members))
		for k, i := range g.members {
			cs[k] = curveOf(o.curves[i], m)
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

// chartSpec is metric m's chart of the series: the seed groups' bands, the reference lines
// (Bayes at 0 on a linear axis from 0, the pass line on (a), the context-free level on (a)
// and (b)), the cursor line when scrubbing, the seeds' own curves when shown, the lines (the
// highlighted series, else the first, on top) and the heads switched off; with the
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
	if m != metricKL {
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
	c := look.Chart{XInt: true, YLog: o.log, XTitle: xAxisTitle, RefStyle: o.st.Dim, BandOverlap: bandOverlap}
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
	c.XR = look.Span{Lo: float64(steps[0]), Hi: float64(steps[len(steps)-1])}.Widen()
	var out []look.RefLine
	for _, r := range refs {
		if r.Y >= c.YR.Lo && r.Y <= c.YR.Hi {
			c.Refs = append(c.Refs, r)
		} else {
			out = append(out, r)
		}
	}
	if !o.cursor.follow {
		c.Cursor = &look.Cursor{X: float64(at), Glyph: cursorGlyph, Style: o.st.Focus}
	}
	order := o.drawOrder()
	for _, j := range order {
		if b := data[j].band; o.groups[j].band() {
			c.Bands = append(c.Bands, look.Band{Glyph: o.bandGlyph(j), Style: o.style(j), At: func(x float64) (float64, float64, bool) {
				lo, hi, ok := bandAt(b, x)
				return tr(math.Max(lo, 0)), tr(hi), ok
			}})
		}
	}
	if o.seeds {
		for _, j := range order {
			for k, sc := range data[j].seeds {
				c.Series = append(c.Series, curveSeries(sc, tr, seedGlyph(k), o.style(j)))
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
		c.Series = append(c.Series, curveSeries(line, tr, overlayGlyphs[j%len(overlayGlyphs)], o.style(j)))
		for _, h := range o.groupHeads(j) {
			if v, ok := derived.CurveAt(line, float64(h)); ok {
				c.Marks = append(c.Marks, look.Mark{X: float64(h), Y: tr(v), Glyph: headGlyph, Style: o.st.Warn})
			}
		}
	}
	return c, out
}

// curveSeries is a curve as a chart series in the chart's units (non-finite values left
// as gaps).
func curveSeries(c []stepValue, tr func(float64) float64, glyph rune, st lipgloss.Style) look.Series {
	s := look.Series{Glyph: glyph, Style: st, X: make([]float64, len(c)), Y: make([]float64, len(c))}
	for k, p := range c {
		s.X[k], s.Y[k] = float64(p.Step), math.NaN()
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
