package figures

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// layoutDPI is the resolution of the trial drawing drawPlot looks for empty room in.
const layoutDPI = 48

// legendInset is the gap between a legend and the data area's edge or the data.
var legendInset = vg.Points(4)

// drawPlot draws p on c with its title wrapped to c's width, as many X tick labels as
// stand apart, and its legend where it hides nothing: in the first corner (top right, top
// left, bottom right, bottom left, then the middle of the right or left edge) of the data
// area that a trial drawing of the plot, grid and legend left out, shows empty; where none
// is, in a column right of the data area, or, where that column would leave the data less
// than maxLegendCol of the width, in a band under the plot; the title stays centred over
// all of c. It returns the data area drawn.
func drawPlot(c draw.Canvas, p *plot.Plot) vg.Rectangle {
	defer fitTitle(p, c.Max.X-c.Min.X)()
	defer fitTicks(p, p.DataCanvas(c).Rectangle)()
	leg := p.Legend
	size := leg.Rectangle(c).Size()
	if size.X <= 0 || size.Y <= 0 {
		p.Draw(c)
		return p.DataCanvas(c).Rectangle
	}
	size.Y += leg.TextStyle.FontExtents().Descent
	p.Legend = plot.NewLegend() // drawn here, not by p.Draw
	defer func() { p.Legend = leg }()
	dc := p.DataCanvas(c)
	if r, left, ok := freeCorner(c, p, dc, size); ok {
		p.Draw(c)
		leg.Left, leg.Top = left, true
		leg.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: r})
		return dc.Rectangle
	}
	// No room inside: the legend beside the data area, or under the plot.
	inner := c
	if p.Title.Text != "" {
		title := p.Title.Text
		descent := p.Title.TextStyle.FontExtents().Descent
		c.FillText(p.Title.TextStyle, vg.Point{X: c.Center().X, Y: c.Max.Y + descent}, title)
		inner.Max.Y -= p.Title.TextStyle.Rectangle(title).Size().Y + p.Title.Padding
		p.Title.Text = ""
		defer func() { p.Title.Text = title }()
	}
	if col := size.X + 3*legendInset; col <= maxLegendCol*(c.Max.X-c.Min.X) {
		inner.Max.X -= col
		p.Draw(inner)
		top := p.DataCanvas(inner).Max.Y
		leg.Left, leg.Top = true, true
		leg.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: inner.Max.X + 2*legendInset, Y: top - size.Y},
			Max: vg.Point{X: c.Max.X, Y: top},
		}})
		return p.DataCanvas(inner).Rectangle
	}
	inner.Min.Y += size.Y + 2*legendInset
	p.Draw(inner)
	dc = p.DataCanvas(inner)
	leg.Left, leg.Top = true, true
	leg.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: dc.Min.X, Y: c.Min.Y + legendInset},
		Max: vg.Point{X: c.Max.X, Y: c.Min.Y + legendInset + size.Y},
	}})
	return dc.Rectangle
}

// maxLegendCol is the largest fraction of a plot's width a legend column beside it takes;
// a wider legend goes under the plot.
const maxLegendCol = 0.3

// freeCorner finds a place of the given size in the data area dc (of p drawn on c) that a
// trial drawing of p, its grid and legend left out, leaves empty: the rectangle, whether it
// is on the left, and ok.
func freeCorner(c draw.Canvas, p *plot.Plot, dc draw.Canvas, size vg.Point) (vg.Rectangle, bool, bool) {
	w, h := c.Max.X-c.Min.X, c.Max.Y-c.Min.Y
	if size.X+2*legendInset > dc.Max.X-dc.Min.X || size.Y+2*legendInset > dc.Max.Y-dc.Min.Y {
		return vg.Rectangle{}, false, false
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(layoutDPI), vgimg.UseBackgroundColor(color.White))
	trial := draw.Canvas{Canvas: layoutCanvas{img}, Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}
	p.Draw(trial)
	shift := vg.Point{X: -c.Min.X, Y: -c.Min.Y} // c's rectangle on the trial canvas
	rgba := img.Image()
	ink := func(r vg.Rectangle) bool {
		r = vg.Rectangle{Min: r.Min.Add(shift), Max: r.Max.Add(shift)}
		px := func(l vg.Length) int { return int(math.Round(float64(l) / vg.Inch.Points() * layoutDPI)) }
		hpx := rgba.Bounds().Dy()
		x0, x1 := px(r.Min.X), px(r.Max.X)
		y0, y1 := hpx-px(r.Max.Y), hpx-px(r.Min.Y) // the image's y runs down
		n := 0
		for y := max(y0, 0); y < min(y1, hpx); y++ {
			for x := max(x0, 0); x < min(x1, rgba.Bounds().Dx()); x++ {
				cr, cg, cb, _ := rgba.At(x, y).RGBA()
				if min(cr, cg, cb) < 0xf4f4 {
					n++
				}
			}
		}
		return n > 0
	}
	in := legendInset
	left, right := dc.Min.X+in, dc.Max.X-in-size.X
	top, bottom := dc.Max.Y-in-size.Y, dc.Min.Y+in
	mid := (dc.Min.Y + dc.Max.Y - size.Y) / 2
	for _, cand := range []struct {
		x, y vg.Length
		left bool
	}{{right, top, false}, {left, top, true}, {right, bottom, false}, {left, bottom, true}, {right, mid, false}, {left, mid, true}} {
		r := vg.Rectangle{Min: vg.Point{X: cand.x, Y: cand.y}, Max: vg.Point{X: cand.x + size.X, Y: cand.y + size.Y}}
		grown := vg.Rectangle{Min: r.Min.Sub(vg.Point{X: in, Y: in}), Max: r.Max.Add(vg.Point{X: in, Y: in})}
		if !ink(grown) {
			return r, cand.left, true
		}
	}
	return vg.Rectangle{}, false, false
}

// layoutCanvas is the canvas of drawPlot's trial drawing, on which gridLines draw nothing.
type layoutCanvas struct{ vg.Canvas }

// isTrial reports whether c is (or is cropped from) a layoutCanvas: draw.Crop wraps the
// canvas it crops.
func isTrial(c vg.Canvas) bool {
	for {
		switch v := c.(type) {
		case layoutCanvas:
			return true
		case draw.Canvas:
			c = v.Canvas
		case *draw.Canvas:
			c = v.Canvas
		default:
			return false
		}
	}
}

// gridLines is plotter.Grid, left out of drawPlot's trial drawing (a legend may cover it).
type gridLines struct{ *plotter.Grid }

// Plot implements plot.Plotter.
func (g gridLines) Plot(c draw.Canvas, p *plot.Plot) {
	if isTrial(c.Canvas) {
		return
	}
	g.Grid.Plot(c, p)
}
