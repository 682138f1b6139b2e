package figures

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// What makes a figure read at any size from one column (480×300) up: a figure smaller than
// minPageW×minPageH pixels is laid out on a page of that size and drawn scaled down (its
// text stays 9 to 10 pixels high), titles wrap to the width they have, and an axis gets as
// many tick labels as fit side by side.
const (
	minPageW = 640
	minPageH = 400
	// minTitleScale is the smallest fraction of its size a title's font shrinks to when a
	// word of it is wider than the page.
	minTitleScale = 0.7
	// maxTextLines is the most lines a wrapped title takes.
	maxTextLines = 3
)

// pageDPI is the resolution a w×h pixel figure is drawn at: dpi, or less for a figure
// smaller than the least page, so that it is laid out as on that page and scaled down.
func pageDPI(w, h int) int {
	s := math.Min(1, math.Min(float64(w)/minPageW, float64(h)/minPageH))
	return max(int(math.Round(dpi*s)), 24)
}

// pageSize is the page a w×h pixel figure is laid out on, drawn at pageDPI.
func pageSize(w, h int) (vg.Length, vg.Length) {
	d := vg.Length(pageDPI(w, h))
	return vg.Length(w) * vg.Inch / d, vg.Length(h) * vg.Inch / d
}

// drawSized draws f on c, a vector canvas of w×h pixels at dpi, laid out on pageSize and
// scaled to fit; it returns the data areas drawFigure gives, on c.
func drawSized(c vg.Canvas, f figure, w, h int) []vg.Rectangle {
	s := float64(pageDPI(w, h)) / dpi
	W, H := pageSize(w, h)
	if s < 1 {
		c.Scale(s, s)
	}
	areas := drawFigure(draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Max: vg.Point{X: W, Y: H}}}, f)
	for i, a := range areas {
		areas[i] = vg.Rectangle{Min: a.Min.Scale(vg.Length(s)), Max: a.Max.Scale(vg.Length(s))}
	}
	return areas
}

// wrapText breaks each line of s at spaces so that it fits width in sty, in at most
// maxTextLines lines (the last ending in " …" where more would follow), and returns it with
// the style to draw it in: sty, its font shrunk (down to minTitleScale) where one word
// alone is wider.
func wrapText(sty text.Style, s string, width vg.Length) (string, text.Style) {
	if width <= 0 || s == "" {
		return s, sty
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		cur := ""
		for _, w := range strings.Fields(line) {
			try := w
			if cur != "" {
				try = cur + " " + w
			}
			if cur != "" && sty.Width(try) > width {
				out, cur = append(out, cur), w
				continue
			}
			cur = try
		}
		out = append(out, cur)
	}
	if len(out) > maxTextLines { // the rest is in the file's title (plot --json)
		out = append(out[:maxTextLines-1], strings.Join(out[maxTextLines-1:], " "))
		last := strings.Fields(out[maxTextLines-1])
		cut := ""
		for _, w := range last {
			if sty.Width(cut+" "+w+" …") > width && cut != "" {
				break
			}
			cut = strings.TrimSpace(cut + " " + w)
		}
		out[maxTextLines-1] = cut + " …"
	}
	wrapped := strings.Join(out, "\n")
	if wide := sty.Width(wrapped); wide > width {
		sty.Font.Size *= vg.Length(math.Max(float64(width/wide), minTitleScale))
	}
	return wrapped, sty
}

// fitTitle wraps p's title to width; it returns a function that puts the title back.
func fitTitle(p *plot.Plot, width vg.Length) func() {
	t, sty := p.Title.Text, p.Title.TextStyle
	p.Title.Text, p.Title.TextStyle = wrapText(sty, t, width)
	return func() { p.Title.Text, p.Title.TextStyle = t, sty }
}

// fitTicks lowers the count of labels of p's linear ticks until they stand apart in the
// data area dc: side by side on X, one above the other on Y; a nominal X axis (one label
// per bar) whose labels do not stand side by side has them turned upright. It returns a
// function that puts the tickers and the labels' turn back.
func fitTicks(p *plot.Plot, dc vg.Rectangle) func() {
	xm, ym, xl := p.X.Tick.Marker, p.Y.Tick.Marker, p.X.Tick.Label
	fitAxis(&p.X, dc.Max.X-dc.Min.X, func(sty text.Style, l string) vg.Length { return sty.Width(l) + sty.Width("00") })
	fitAxis(&p.Y, dc.Max.Y-dc.Min.Y, func(sty text.Style, l string) vg.Length { return 1.6 * sty.Font.Size })
	if ct, ok := p.X.Tick.Marker.(plot.ConstantTicks); ok && p.X.Tick.Label.Rotation == 0 {
		need := vg.Length(0)
		for _, t := range ct {
			need += p.X.Tick.Label.Width(t.Label) + p.X.Tick.Label.Width(" ")
		}
		if need > dc.Max.X-dc.Min.X {
			upright(p)
		}
	}
	return func() { p.X.Tick.Marker, p.Y.Tick.Marker, p.X.Tick.Label = xm, ym, xl }
}

// fitAxis gives a with linear ticks as many labels as fit in room, each taking need.
func fitAxis(a *plot.Axis, room vg.Length, need func(text.Style, string) vg.Length) {
	lt, ok := a.Tick.Marker.(linearTicks)
	if !ok {
		return
	}
	for n := lt.n; n >= 2; n-- {
		t := linearTicks{n: n, integer: lt.integer}
		a.Tick.Marker = t
		used := vg.Length(0)
		for _, tk := range t.Ticks(a.Min, a.Max) {
			if tk.Label != "" {
				used += need(a.Tick.Label, tk.Label)
			}
		}
		if used <= room {
			return
		}
	}
}

// maxBarW is the widest bar: a few bars do not fill the page.
var maxBarW = vg.Points(36)

// slotBars is a bar chart whose bars take their share of the room between two categories
// at any figure size (a bar width in points would run bars together on a small page): bar
// k of the n side by side in each slot, the n together 0.8 of the slot (each at most
// maxBarW).
type slotBars struct {
	*plotter.BarChart
	k, n int
}

// Plot implements plot.Plotter.
func (b slotBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	w := min((trX(1)-trX(0))*0.8/vg.Length(b.n), maxBarW)
	b.Width, b.Offset = w, w*vg.Length(float64(b.k)-float64(b.n-1)/2)
	b.BarChart.Plot(c, p)
}
