package figures

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/diagnostics/ticks"
)

// pcAxis is one vertical axis of a parallel-coordinates figure: where each value stands on
// it (0 bottom, 1 top; NaN for a value it cannot place) and its labelled ticks.
type pcAxis struct {
	name  string
	at    func(v string) float64
	ticks []ticks.Tick // Value in 0..1
}

// pcDistinct is the most distinct numbers an axis labels one by one (a grid's values);
// more get round ticks.
const pcDistinct = 8

// pcAxisOf is the axis of a column of values: numbers (on a log scale when all are positive
// and span a factor of 20 or more) when every value is one, else categories in sorted order,
// evenly spaced.
func pcAxisOf(name string, vals []string) pcAxis {
	var xs []float64
	numeric := true
	for _, v := range vals {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			numeric = false
			break
		}
		xs = append(xs, x)
	}
	if !numeric || len(xs) == 0 {
		cats := slices.Compact(slices.Sorted(slices.Values(vals)))
		a := pcAxis{name: name, at: func(v string) float64 {
			i, ok := slices.BinarySearch(cats, v)
			switch {
			case !ok:
				return math.NaN()
			case len(cats) == 1:
				return 0.5
			}
			return float64(i) / float64(len(cats)-1)
		}}
		for _, c := range cats {
			a.ticks = append(a.ticks, ticks.Tick{Value: a.at(c), Label: c})
		}
		return a
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	logScale := lo > 0 && hi/lo >= 20
	f := func(x float64) float64 { return x }
	if logScale {
		f = math.Log10
	}
	scale := func(x float64) float64 {
		if hi == lo {
			return 0.5
		}
		return (f(x) - f(lo)) / (f(hi) - f(lo))
	}
	a := pcAxis{name: name, at: func(v string) float64 {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return math.NaN()
		}
		return scale(x)
	}}
	distinct := slices.Compact(slices.Sorted(slices.Values(xs)))
	var ts []ticks.Tick
	switch {
	case len(distinct) <= pcDistinct:
		for _, x := range distinct {
			ts = append(ts, ticks.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 4, 64)})
		}
	case logScale:
		ts = ticks.Labelled(ticks.Log(lo, hi))
	default:
		ts = ticks.Labelled(ticks.Linear(lo, hi, 5, false))
	}
	for _, t := range ts {
		if t.Label != "" && t.Value >= lo && t.Value <= hi {
			a.ticks = append(a.ticks, ticks.Tick{Value: scale(t.Value), Label: t.Label})
		}
	}
	return a
}

// pcAxes draws the axes of a parallel-coordinates plot: a vertical line at x = i for axis i
// with its ticks labelled on its left, on a pale ground so that lines under them do not hide
// them.
type pcAxes struct {
	axes []pcAxis
	font text.Style
}

// Plot implements plot.Plotter.
func (p pcAxes) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	line := draw.LineStyle{Color: plotter.DefaultLineStyle.Color, Width: vg.Points(1)}
	sty := p.font
	sty.XAlign, sty.YAlign = draw.XRight, draw.YCenter
	for i, a := range p.axes {
		x := trX(float64(i))
		c.StrokeLine2(line, x, trY(0), x, trY(1))
		for _, t := range a.ticks {
			y := trY(t.Value)
			c.StrokeLine2(line, x-vg.Points(3), y, x, y)
			at := vg.Point{X: x - vg.Points(4), Y: y}
			r := sty.Rectangle(t.Label)
			r.Min, r.Max = r.Min.Add(at), r.Max.Add(at)
			c.FillPolygon(color.NRGBA{R: 255, G: 255, B: 255, A: 200}, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
			c.FillText(sty, at, t.Label)
		}
	}
}

// DataRange implements plot.DataRanger: the axes from 0 to their count − 1, values 0..1.
func (p pcAxes) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, float64(len(p.axes) - 1), 0, 1
}

// Parallel writes the parallel-coordinates figure of a sweep's settings against its
// metric to path: an axis per column (the swept flags, the metric last: numbers on a linear
// or log scale, or categories), a line per row across them coloured by the metric (the
// colour bar beside), the best row (the lowest metric, the highest for goal "maximize")
// drawn last and widest. Rows whose metric is not a number are left out; fewer than one row
// or two columns is an error.
func Parallel(title string, axes []string, rows [][]string, goal string, path string, opt Options) error {
	opt, err := opt.normalised()
	if err != nil {
		return err
	}
	f, err := parallelFigure(title, axes, rows, goal)
	if err != nil {
		return err
	}
	return save(f, path, opt)
}

// parallelFigure builds Parallel's figure.
func parallelFigure(title string, names []string, rows [][]string, goal string) (figure, error) {
	n := len(names)
	metric := func(r []string) float64 {
		x, err := strconv.ParseFloat(r[n-1], 64)
		if err != nil || math.IsInf(x, 0) {
			return math.NaN()
		}
		return x
	}
	var kept [][]string
	for _, r := range rows {
		if len(r) == n && !math.IsNaN(metric(r)) {
			kept = append(kept, r)
		}
	}
	if n < 2 || len(kept) == 0 {
		return figure{}, fmt.Errorf("figures: parallel coordinates: %d settings and %d points with the metric: want a setting and a point", n-1, len(kept))
	}
	// Worst first, so that the best is drawn over the others.
	better := func(a, b float64) bool { return a < b }
	if goal == "maximize" {
		better = func(a, b float64) bool { return a > b }
	}
	slices.SortStableFunc(kept, func(a, b []string) int {
		ma, mb := metric(a), metric(b)
		switch {
		case better(ma, mb):
			return 1
		case better(mb, ma):
			return -1
		}
		return 0
	})
	axes := make([]pcAxis, n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := range names {
		col := make([]string, len(kept))
		for i, r := range kept {
			col[i] = r[j]
		}
		axes[j] = pcAxisOf(names[j], col)
	}
	for _, r := range kept {
		lo, hi = math.Min(lo, metric(r)), math.Max(hi, metric(r))
	}
	cm := colourRange(viridis(), lo, hi)
	p := newPlot("", "", "")
	p.HideY()
	p.Y.Min, p.Y.Max = -0.03, 1.03
	p.X.Min, p.X.Max = -0.15, float64(n-1)+0.05
	var xt plot.ConstantTicks
	for i, name := range names {
		xt = append(xt, plot.Tick{Value: float64(i), Label: name})
	}
	p.X.Tick.Marker = xt
	p.X.Tick.Label.Font.Size = vg.Points(12)
	font := p.X.Tick.Label
	font.Font.Size = vg.Points(10)
	for i, r := range kept {
		pts := make(plotter.XYs, 0, n)
		for j, a := range axes {
			if y := a.at(r[j]); !math.IsNaN(y) {
				pts = append(pts, plotter.XY{X: float64(j), Y: y})
			}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return figure{}, fmt.Errorf("figures: parallel coordinates: %w", err)
		}
		l.Color, l.Width = colourAt(cm, metric(r)), vg.Points(1.4)
		if i == len(kept)-1 {
			l.Width = vg.Points(3.2)
		}
		p.Add(l)
	}
	p.Add(pcAxes{axes: axes, font: font}) // over the lines, its labels on a pale ground
	const barW = 0.1
	return panelled("sweep-parallel", title,
		panel{plot: p, x0: 0, x1: 1 - barW, y0: 0, y1: 1},
		panel{plot: colourBar(cm, names[n-1]), x0: 1 - barW, x1: 1, y0: 0, y1: 1, bar: true}), nil
}
