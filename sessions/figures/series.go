package figures

import (
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/sessions/derived"
)

// band is a series' mean and spread over seeds at each x.
type band struct {
	x, mean, lo, hi []float64
	// seeds is the largest number of seeds at any x.
	seeds int
}

// meanBand is the seeds' band (derived.SeedBand: the mean and mean ± sd clipped to the
// seeds' range at each x any of them has, values interpolated between a seed's points) of
// (x, y) series with integer x. NaN values are left out.
func meanBand(series [][][2]float64) band {
	curves := make([][]derived.StepValue, len(series))
	for i, s := range series {
		for _, p := range s {
			curves[i] = append(curves[i], derived.StepValue{Step: int(p[0]), V: p[1]})
		}
		sort.SliceStable(curves[i], func(a, b int) bool { return curves[i][a].Step < curves[i][b].Step })
	}
	var b band
	for _, p := range derived.SeedBand(curves) {
		b.x = append(b.x, float64(p.Step))
		b.mean = append(b.mean, p.Mean)
		b.lo = append(b.lo, p.Lo)
		b.hi = append(b.hi, p.Hi)
		b.seeds = max(b.seeds, p.N)
	}
	return b
}

// addBand draws b on p in colour and line style i (solid, then dashed, dotted, …; the
// solid line widest, so that a dashed curve drawn over it lets it show): the band (when
// there are several seeds) and the mean line, with a legend entry. logY floors values at
// floorBits.
func addBand(p *plot.Plot, b band, i int, name string, logY bool) error {
	return addBandStyle(p, b, curveStyle(i), name, logY)
}

// addBandStyle is addBand with the mean line in sty (the band in its colour, faded).
func addBandStyle(p *plot.Plot, b band, sty draw.LineStyle, name string, logY bool) error {
	if len(b.x) == 0 {
		return nil
	}
	f := func(v float64) float64 {
		if logY {
			return logFloor(v)
		}
		return v
	}
	clr := sty.Color
	if b.seeds > 1 {
		poly := make(plotter.XYs, 0, 2*len(b.x))
		for k := range b.x {
			poly = append(poly, plotter.XY{X: b.x[k], Y: f(b.hi[k])})
		}
		for k := len(b.x) - 1; k >= 0; k-- {
			poly = append(poly, plotter.XY{X: b.x[k], Y: f(b.lo[k])})
		}
		pg, err := plotter.NewPolygon(poly)
		if err != nil {
			return err
		}
		pg.Color = fade(clr)
		pg.LineStyle.Width = 0
		p.Add(pg)
	}
	pts := make(plotter.XYs, len(b.x))
	for k := range b.x {
		pts[k] = plotter.XY{X: b.x[k], Y: f(b.mean[k])}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.LineStyle = sty
	p.Add(l)
	if len(pts) == 1 { // a single point has no line: mark it
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.Color = clr
		p.Add(s)
	}
	p.Legend.Add(name, l)
	return nil
}

// curveStyle is the line style of the i-th curve of a figure: colour i, solid and widest
// for the first, then dashed, dotted and dash-dotted ones a little narrower.
func curveStyle(i int) draw.LineStyle {
	w := vg.Points(1.6)
	if i == 0 {
		w = vg.Points(2.4)
	}
	return draw.LineStyle{Color: plotutil.Color(i), Width: w, Dashes: plotutil.Dashes(i)}
}

// fade is clr at a quarter opacity (the band's fill).
func fade(clr color.Color) color.Color {
	r, g, b, _ := clr.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 64}
}

// hline draws a dashed horizontal reference line at y across the plot, labelled at its
// right end (not in the legend); it shows only where y is in the axis' range.
func hline(p *plot.Plot, y float64, clr color.Color, label string) *refLine {
	r := newRefLine(y, clr, label)
	p.Add(r)
	return r
}

// vline is a dashed vertical line at x over the plot's height.
type vline struct {
	x     float64
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (v vline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.x)
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
}

// addVLine draws a dashed vertical line at x with a legend entry.
func addVLine(p *plot.Plot, x float64, clr color.Color, name string) {
	v := vline{x: x, style: draw.LineStyle{Color: clr, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}}
	p.Add(v)
	p.Legend.Add(name, v)
}

// Thumbnail implements plot.Thumbnailer (the legend's swatch).
func (v vline) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
}

// logAxis sets p's Y axis to a log scale with ticks readable over any range (logTicks),
// its range the data's (floored at floorBits: a log axis has no place for 0) widened by a
// twentieth of its decades on each side.
func logAxis(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	if p.Y.Min < floorBits {
		p.Y.Min = floorBits
	}
	if !(p.Y.Max > p.Y.Min) {
		p.Y.Max = p.Y.Min * 10
	}
	pad := math.Pow(p.Y.Max/p.Y.Min, 0.05)
	p.Y.Min, p.Y.Max = math.Max(p.Y.Min/pad, floorBits/2), p.Y.Max*pad
}

// newPlot is a plot with the title, axis labels, a grid and ticks of round values (about
// seven labels on X, six on Y: gonum's default gives three); its legend is placed by
// drawPlot where it hides no data.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker = linearTicks{n: 7}
	p.Y.Tick.Marker = linearTicks{n: 6}
	p.Add(gridLines{plotter.NewGrid()})
	p.Legend.ThumbnailWidth = vg.Points(28)
	p.Legend.Padding = vg.Points(2)
	p.Title.TextStyle.Font.Size = titleSize
	p.X.Tick.Label.Font.Size = vg.Points(11)
	p.Y.Tick.Label.Font.Size = vg.Points(11)
	p.Legend.TextStyle.Font.Size = vg.Points(11)
	return p
}

// titleSize is the font size of a figure's title.
var titleSize = vg.Points(13)

// integerX gives p's X axis integer ticks and labels (steps, positions), about n of them.
func integerX(p *plot.Plot, n int) { p.X.Tick.Marker = linearTicks{n: n, integer: true} }
