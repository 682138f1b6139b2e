package figures

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// refLine is a dashed horizontal reference line across the data area, named by a label at
// one of its ends (not in the legend). Outside the axis' range it is not drawn; with note
// set, its label then says so at the edge it is beyond.
type refLine struct {
	y     float64
	style draw.LineStyle
	label string
	// left puts the label at the line's left end, below under the line (where the data
	// keep away from it: placeLabel).
	left, below bool
	note        bool
	// row is the note's line at its edge, counted from the edge (stackNotes), so that two
	// lines beyond the same edge are named one above the other.
	row int
}

// stackNotes gives each of refs that is noted beyond an edge of p's Y range its own row
// there, in order.
func stackNotes(p *plot.Plot, refs []*refLine) {
	below, above := 0, 0
	for _, r := range refs {
		switch {
		case !r.note || r.label == "":
		case r.y < p.Y.Min:
			r.row, below = below, below+1
		case r.y > p.Y.Max:
			r.row, above = above, above+1
		}
	}
}

// newRefLine is a dashed reference line at y in clr, labelled.
func newRefLine(y float64, clr color.Color, label string) *refLine {
	return &refLine{y: y, label: label, style: draw.LineStyle{Color: clr, Width: vg.Points(1.2),
		Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
}

// Plot implements plot.Plotter.
func (r *refLine) Plot(c draw.Canvas, p *plot.Plot) {
	sty := p.X.Tick.Label
	sty.Color = r.style.Color
	sty.Rotation = 0
	sty.XAlign = draw.XRight
	x := c.Max.X - vg.Points(3)
	if r.left {
		sty.XAlign = draw.XLeft
		x = c.Min.X + vg.Points(3)
	}
	if r.y < p.Y.Min || r.y > p.Y.Max {
		if !r.note || r.label == "" {
			return
		}
		step := vg.Length(r.row) * 1.2 * sty.Font.Size
		text, pt := r.label+" lies below this range", vg.Point{X: x, Y: c.Min.Y + vg.Points(3) + step}
		sty.YAlign = draw.YBottom
		if r.y > p.Y.Max {
			text, pt = r.label+" lies above this range", vg.Point{X: x, Y: c.Max.Y - vg.Points(3) - step}
			sty.YAlign = draw.YTop
		}
		c.FillText(sty, pt, text)
		return
	}
	_, trY := p.Transforms(&c)
	y := trY(r.y)
	c.StrokeLine2(r.style, c.Min.X, y, c.Max.X, y)
	if r.label == "" {
		return
	}
	pt := vg.Point{X: x, Y: y + vg.Points(2)}
	sty.YAlign = draw.YBottom
	if r.below || pt.Y+sty.Rectangle(r.label).Size().Y > c.Max.Y {
		sty.YAlign = draw.YTop
		pt.Y = y - vg.Points(2)
	}
	c.FillText(sty, pt, r.label)
}

// placeLabel puts r's label where the curves keep away from it, once p's Y range is set:
// the first of right above, right below, left above, left below the line whose room (a
// tenth of the axis' height by a fifth of its width, at that end) no curve point enters;
// points on the line itself (within 1% of the height) do not count, as the label stands
// off it. Where none is free, the label goes to the legend (placed where it hides no
// data) and placeLabel reports false.
func placeLabel(r *refLine, curves []plotter.XYs, p *plot.Plot) bool {
	logY := false
	if _, ok := p.Y.Scale.(plot.LogScale); ok {
		logY = true
	}
	f := func(v float64) float64 {
		if logY {
			return math.Log10(math.Max(v, floorBits))
		}
		return v
	}
	lo, hi := f(p.Y.Min), f(p.Y.Max)
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, c := range curves {
		for _, pt := range c {
			xlo, xhi = math.Min(xlo, pt.X), math.Max(xhi, pt.X)
		}
	}
	if !(hi > lo) || !(xhi >= xlo) {
		return true
	}
	y, room, on := f(r.y), (hi-lo)/10, (hi-lo)/100
	free := func(left, below bool) bool {
		x0, x1 := xhi-(xhi-xlo)/5, xhi
		if left {
			x0, x1 = xlo, xlo+(xhi-xlo)/5
		}
		for _, c := range curves {
			for _, pt := range c {
				if pt.X < x0 || pt.X > x1 || math.IsNaN(pt.Y) {
					continue
				}
				d := f(pt.Y) - y
				if below {
					d = -d
				}
				if d > on && d < room {
					return false
				}
			}
		}
		return true
	}
	for _, s := range []struct{ left, below bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
		if free(s.left, s.below) {
			r.left, r.below = s.left, s.below
			return true
		}
	}
	p.Legend.Add(r.label, r)
	r.label = ""
	return false
}

// Thumbnail implements plot.Thumbnailer (the legend's swatch, where the line has no room
// for its label).
func (r *refLine) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(r.style, c.Min.X, y, c.Max.X, y)
}

// barPoints stands a bar chart's bars (value vs[i] at x = i, from 0) for placeLabel: each
// bar as points from 0 to its top, close enough that none of its height is missed.
func barPoints(vs []float64) []plotter.XYs {
	out := make([]plotter.XYs, 0, len(vs))
	for i, v := range vs {
		if math.IsNaN(v) {
			continue
		}
		c := make(plotter.XYs, 0, 41)
		for k := range 41 {
			c = append(c, plotter.XY{X: float64(i), Y: v * float64(k) / 40})
		}
		out = append(out, c)
	}
	return out
}
