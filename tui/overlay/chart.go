package overlay

import (
	"fmt"
	"math"
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/linechart"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"windtunnel/sessions"
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

// footerH is the keys' line under the chart.
const footerH = 1

// overlaySeries is one series' data in the current metric: a run's curve, or a seed
// group's mean ± sd on the union of its seeds' steps.
type overlaySeries struct {
	curve []stepValue
	band  []bandPoint
}

// seriesData computes every series in the current metric.
func (o *Model) seriesData() []overlaySeries {
	out := make([]overlaySeries, len(o.groups))
	for j, g := range o.groups {
		if !g.band() {
			out[j].curve = curveOf(o.curves[g.members[0]], o.metric)
			continue
		}
		cs := make([][]stepValue, len(g.members))
		for k, i := range g.members {
			cs[k] = curveOf(o.curves[i], o.metric)
		}
		out[j].band = derived.SeedBand(cs)
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

// render draws the screen into o.frame, exactly width × height: a title, one legend line
// per series with its value at the cursor, the axis-title and cursor line, the chart and
// the keys; with the help open, the help in place of all but the keys.
func (o *Model) render() {
	w, h := o.width, o.height
	o.help.Width = w
	foot := look.PadLine(o.help.ShortHelpView(o.keys.short()), w)
	if o.showHelp {
		bh := h - footerH
		body := ""
		if bh >= look.BorderH+1 {
			iw, ih := w-look.BorderW, bh-look.BorderH
			body = look.Box("Keys — ? or esc closes", look.FullHelp(o.keys.groups(), iw, ih, o.st), w, bh, true, o.st)
		}
		o.frame = overlayFrame([]string{body}, foot, w, h)
		return
	}
	steps := o.steps()
	at, ok := o.cursor.at(steps)
	data := o.seriesData()
	lines := append([]string{o.title()}, o.legend(data, at, ok)...)
	ch := h - len(lines) - footerH - 1 // the axis-title line
	switch {
	case ch >= 4 && ok:
		lines = append(lines, o.axisLine(w, at), o.chart(w, ch, data, steps, at))
	case ch >= 0:
		note := "no evaluations yet"
		if ok {
			note = "no room for the chart"
		}
		lines = append(lines, look.Fit(o.st.Dim.Render(note), w, ch+1))
	}
	o.frame = overlayFrame(lines, foot, w, h)
}

// overlayFrame is the lines over the footer, exactly w × h: the footer stays in view when
// the lines do not fit.
func overlayFrame(lines []string, foot string, w, h int) string {
	body := strings.Split(strings.Join(lines, "\n"), "\n")
	body = body[:min(len(body), max(h-footerH, 0))]
	return look.Fit(strings.Join(append(body, foot), "\n"), w, h)
}

// title names the metric, the task the runs share, how many sessions and seed groups there
// are, and the scale.
func (o *Model) title() string {
	parts := []string{o.metric.title() + " over steps"}
	task := ""
	for i, m := range o.metas {
		if i > 0 && m.Task != task {
			task = ""
			break
		}
		task = m.Task
	}
	if task != "" {
		parts = append(parts, task)
	}
	runs := overlayPlural(len(o.feeds), "session")
	if n := o.bands(); n > 0 {
		runs += fmt.Sprintf(" (%s: mean ± sd)", overlayPlural(n, "seed group"))
	}
	scale := "linear"
	if o.log {
		scale = "log"
	}
	parts = append(parts, runs, scale+" (l)")
	return strings.Join(parts, " · ")
}

// overlayPlural is "1 session", "2 sessions".
func overlayPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// bands is the number of seed groups.
func (o *Model) bands() int {
	n := 0
	for _, g := range o.groups {
		if g.band() {
			n++
		}
	}
	return n
}

// legend is one line per series: its glyph (and band shade), its label and its value at
// step at (a group's mean ± sd), from the newest evaluation at or before it.
func (o *Model) legend(data []overlaySeries, at int, ok bool) []string {
	lw := 0
	for _, g := range o.groups {
		lw = max(lw, ansi.StringWidth(g.label))
	}
	lw = min(lw, max(o.width/2, 12))
	bands := o.bands() > 0
	ms := o.metric.short()
	var lines []string
	for j, g := range o.groups {
		st := o.style(j)
		mark := ""
		if o.sel >= 0 {
			mark = "  "
			if o.sel == j {
				mark = "▶ "
			}
		}
		mark += st.Render(string(overlayGlyphs[j%len(overlayGlyphs)])) + " "
		if bands {
			shade := " "
			if g.band() {
				shade = st.Render(string(o.bandGlyph(j)))
			}
			mark += shade + " "
		}
		val := "no evaluations yet"
		errMsg := ""
		for _, i := range g.members {
			if o.errs[i] != "" {
				errMsg = "error: " + o.errs[i]
				if g.band() {
					errMsg = "error: " + o.names[i] + ": " + o.errs[i]
				}
				break
			}
		}
		switch d := data[j]; {
		case errMsg != "":
			val = o.st.Warn.Render(errMsg)
		case g.band() && len(d.band) > 0:
			val = "no evaluation yet"
			if p, found := lastAt(d.band, func(p bandPoint) int { return p.Step }, at); ok && found {
				val = fmt.Sprintf("%s %s ± %s @%d", ms, look.Num(p.Mean, 3), look.Num(p.SD, 3), p.Step)
				if p.N < len(g.members) {
					val += fmt.Sprintf(" (%d of %d seeds)", p.N, len(g.members))
				}
			}
		case !g.band() && len(d.curve) > 0:
			val = "no evaluation yet"
			if p, found := lastAt(d.curve, func(p stepValue) int { return p.Step }, at); ok && found {
				val = fmt.Sprintf("%s %s @%d", ms, look.Num(p.V, 3), p.Step)
			}
		}
		lines = append(lines, mark+look.PadLine(g.label, lw)+"  "+val)
	}
	return lines
}

// axisLine is the y axis' title over the chart, and the cursor's step on the right.
func (o *Model) axisLine(w, at int) string {
	left := "bits"
	if o.log {
		left = "bits (log scale)"
	}
	right := fmt.Sprintf("step %d · newest (←/→ scrub)", at)
	if !o.cursor.follow {
		right = fmt.Sprintf("step %d %c · scrubbing (end: follow)", at, cursorGlyph)
	}
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return look.PadLine(left, w)
	}
	return left + strings.Repeat(" ", gap) + o.st.Dim.Render(right)
}

// chart draws the series in w×h cells: the seed groups' bands first, the cursor line when
// scrubbing, then the lines (the highlighted series, else the first, on top), and the x
// axis' title at the end of its labels.
func (o *Model) chart(w, h int, data []overlaySeries, steps []int, at int) string {
	if w < 16 || h < 4 || len(steps) == 0 {
		return look.Fit("", w, h)
	}
	tr := func(v float64) float64 { return v }
	if o.log {
		tr = func(v float64) float64 { return math.Log10(math.Max(v, look.LogFloor)) }
	}
	var ys []float64
	for _, d := range data {
		for _, p := range d.curve {
			ys = append(ys, tr(p.V))
		}
		for _, p := range d.band {
			ys = append(ys, tr(p.Hi), tr(math.Max(p.Lo, 0)))
		}
	}
	yr, yfmt := look.LinearRange(ys), look.ValueLabels
	if o.log {
		yr, yfmt = look.LogRange(ys), look.PowLabels
	}
	xr := look.Span{Lo: float64(steps[0]), Hi: float64(steps[len(steps)-1])}.Widen()
	lc := linechart.New(w, h, xr.Lo, xr.Hi, yr.Lo, yr.Hi,
		linechart.WithXYSteps(len(look.IntLabels(0, xr.Hi))+3, 2),
		linechart.WithXLabelFormatter(look.IntLabels),
		linechart.WithYLabelFormatter(yfmt))
	lc.DrawXYAxisAndLabel()
	org, gw := lc.Origin(), lc.GraphWidth()
	// cell is the canvas cell of a data point, as linechart draws it (beside the axes).
	cell := func(x, y float64) canvas.Point {
		p := canvas.CanvasPointFromFloat64Point(org, lc.ScaleFloat64Point(canvas.Float64Point{X: xr.Clamp(x), Y: yr.Clamp(y)}))
		return canvas.Point{X: p.X + 1, Y: p.Y - 1}
	}
	order := o.drawOrder()
	owner := map[canvas.Point]int{}
	for _, j := range order {
		if !o.groups[j].band() {
			continue
		}
		glyph, st := o.bandGlyph(j), o.style(j)
		for col := range gw {
			x := xr.Lo + float64(col)*(xr.Hi-xr.Lo)/float64(max(gw-1, 1))
			lo, hi, ok := bandAt(data[j].band, x)
			if !ok {
				continue
			}
			top, bottom := cell(x, tr(hi)).Y, cell(x, tr(math.Max(lo, 0))).Y
			for y := top; y <= bottom; y++ {
				p, g := canvas.Point{X: org.X + 1 + col, Y: y}, glyph
				if k, taken := owner[p]; taken && k != j {
					g = bandOverlap
				}
				owner[p] = j
				lc.Canvas.SetCell(p, canvas.NewCellWithStyle(g, st))
			}
		}
	}
	if !o.cursor.follow {
		x := cell(float64(at), yr.Lo).X
		for y := org.Y - lc.GraphHeight(); y < org.Y; y++ {
			p := canvas.Point{X: x, Y: y}
			if _, band := owner[p]; band || lc.Canvas.Cell(p).Rune == 0 {
				lc.Canvas.SetCell(p, canvas.NewCellWithStyle(cursorGlyph, o.st.Focus))
			}
		}
	}
	for _, j := range order {
		var xs, ys []float64
		if d := data[j]; o.groups[j].band() {
			for _, p := range d.band {
				xs, ys = append(xs, float64(p.Step)), append(ys, tr(p.Mean))
			}
		} else {
			for _, p := range d.curve {
				xs, ys = append(xs, float64(p.Step)), append(ys, tr(p.V))
			}
		}
		glyph, st := overlayGlyphs[j%len(overlayGlyphs)], o.style(j)
		var prev canvas.Float64Point
		have := false
		for _, i := range sessions.Thin(len(xs), max(gw, 2)) {
			if !finiteValue(ys[i]) {
				have = false
				continue
			}
			p := canvas.Float64Point{X: xr.Clamp(xs[i]), Y: yr.Clamp(ys[i])}
			if have {
				lc.DrawRuneLineWithStyle(prev, p, glyph, st)
			} else {
				lc.DrawRuneWithStyle(p, glyph, st)
			}
			prev, have = p, true
		}
	}
	overlayXTitle(&lc, org.Y+1, w)
	return look.Fit(lc.View(), w, h)
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

// overlayXTitle writes the x axis' title at the right end of the label row y, removing the tick
// label it would run into.
func overlayXTitle(lc *linechart.Model, y, w int) {
	start := w - len(xAxisTitle)
	if start < 1 {
		return
	}
	x := start - 1 // keep a blank before the title
	for x > 0 && lc.Canvas.Cell(canvas.Point{X: x, Y: y}).Rune != 0 {
		x--
	}
	for ; x < w; x++ {
		lc.Canvas.SetCell(canvas.Point{X: x, Y: y}, canvas.Cell{})
	}
	lc.Canvas.SetStringWithStyle(canvas.Point{X: start, Y: y}, xAxisTitle, lc.LabelStyle)
}
