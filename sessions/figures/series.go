package figures

import (
	"image/color"
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

// addBand draws b on p in colour i: the band (when there are several seeds) and the mean
// line, with a legend entry. logY floors values at floorBits.
func addBand(p *plot.Plot, b band, i int, name string, logY bool) error {
	if len(b.x) == 0 {
		return nil
	}
	f := func(v float64) float64 {
		if logY {
			return logFloor(v)
		}
		return v
	}
	clr := plotutil.Color(i)
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
	l.Color = clr
	l.Width = vg.Points(1.5)
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

// fade is clr at a quarter opacity (the band's fill).
func fade(clr color.Color) color.Color {
	r, g, b, _ := clr.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 64}
}

// hline draws a dashed horizontal reference line at y across the plot, with a legend entry.
func hline(p *plot.Plot, y float64, clr color.Color, name string) {
	l := plotter.NewFunction(func(float64) float64 { return y })
	l.Color = clr
	l.Width = vg.Points(1)
	l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(name, l)
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

// logAxis sets p's Y axis to a log scale with tick labels at the decades, its range floored
// at floorBits (a log axis has no place for 0).
func logAxis(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	if p.Y.Min < floorBits {
		p.Y.Min = floorBits
	}
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min * 10
	}
}

// newPlot is a plot with the title, axis labels and a grid, the legend top right.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	return p
}
