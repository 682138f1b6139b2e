package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/sessions"
)

// panel is one plot of a several-plot figure, placed at fractions of the figure's width
// (x0..x1, from the left) and height (y0..y1, from the bottom).
type panel struct {
	plot           *plot.Plot
	x0, x1, y0, y1 float64
	// bar marks a colour bar, whose scale spans the data areas of the other panels.
	bar bool
}

// drawFigure draws f on c: its one plot, or its title (wrapped to the width) over its
// panels, each in its own part of what is left, each with its legend placed by drawPlot;
// a colour bar's scale spans the data areas of the other panels. It returns the data area
// of each plot drawn, in the order of f's panels.
func drawFigure(c draw.Canvas, f figure) []vg.Rectangle {
	if len(f.panels) == 0 {
		return []vg.Rectangle{drawPlot(c, f.plot)}
	}
	body := c
	if f.title != "" {
		t, sty := wrapText(titleStyle(), f.title, c.Max.X-c.Min.X)
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y + sty.FontExtents().Descent}, t)
		body.Max.Y -= sty.Rectangle(t).Size().Y + titlePad
	}
	panels := f.panels
	if f.short != nil && body.Max.Y-body.Min.Y < shortBody {
		panels = f.short
	}
	subs := panelCanvases(body, panels)
	areas := make([]vg.Rectangle, len(panels))
	lo, hi := body.Max.Y, body.Min.Y
	for i, p := range panels {
		if !p.bar {
			areas[i] = drawPlot(subs[i], p.plot)
			lo, hi = min(lo, areas[i].Min.Y), max(hi, areas[i].Max.Y)
		}
	}
	for i, p := range panels {
		if p.bar {
			sub := subs[i]
			if hi > lo {
				dc := p.plot.DataCanvas(sub)
				sub.Min.Y += lo - dc.Min.Y
				sub.Max.Y += hi - dc.Max.Y
			}
			areas[i] = drawPlot(sub, p.plot)
		}
	}
	return areas
}

// shortBody is the height under the title below which a figure is drawn with its short
// layout (figure.short), where it has one.
var shortBody = vg.Points(360)

// colourBarW is the width of a colour bar's bar; its panel is as wide as the bar and its
// axis need, whatever the figure's width.
var colourBarW = vg.Points(14)

// panelCanvases places the panels in body: each at its fractions of body, except that the
// colour bars (the panels from the first bar's x0 rightwards) take the width their bar
// and axis need and the other panels share the rest in their proportions.
func panelCanvases(body draw.Canvas, panels []panel) []draw.Canvas {
	w, h := body.Max.X-body.Min.X, body.Max.Y-body.Min.Y
	split, bw := 1.0, vg.Length(0)
	for _, p := range panels {
		if p.bar {
			split = math.Min(split, p.x0)
			trial := draw.Canvas{Canvas: body.Canvas, Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}
			axis := p.plot.DataCanvas(trial).Min.X
			bw = max(bw, axis+colourBarW+vg.Points(4))
		}
	}
	bw = min(bw, w/3)
	x := func(f float64, bar bool) vg.Length {
		if split >= 1 {
			return body.Min.X + w*vg.Length(f)
		}
		if bar {
			return body.Min.X + w - bw + bw*vg.Length((f-split)/(1-split))
		}
		return body.Min.X + (w-bw)*vg.Length(f/split)
	}
	out := make([]draw.Canvas, len(panels))
	for i, p := range panels {
		out[i] = draw.Canvas{Canvas: body.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x(p.x0, p.bar), Y: body.Min.Y + h*vg.Length(p.y0)},
			Max: vg.Point{X: x(p.x1, p.bar), Y: body.Min.Y + h*vg.Length(p.y1)},
		}}
	}
	return out
}

// titlePad is the gap under a panelled figure's title.
var titlePad = vg.Points(6)

// titleStyle is the style of a figure's title, as newPlot's.
func titleStyle() text.Style {
	sty := plot.New().Title.TextStyle
	sty.Font.Size = titleSize
	return sty
}

// nan is a NaN, for cells not recorded.
var nan = math.NaN()

// rotateX turns p's X tick labels upright when there are many of them, so they do not
// overlap (drawPlot turns fewer upright too where they do not stand side by side).
func rotateX(p *plot.Plot, n int) {
	if n > 10 {
		upright(p)
	}
}

// upright turns p's X tick labels upright, reading bottom to top, each ending at its tick.
func upright(p *plot.Plot) {
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
}

// panelled is the figure made of the title over the panels (placed in fractions of the
// room under the title).
func panelled(name, title string, panels ...panel) figure {
	return figure{name: name, title: title, panels: panels}
}

// snapshotOf is the snapshot of the group's first run that has one (the first seed's, as
// the runs are in load order), with its run; ok is false when none has one.
func snapshotOf(g Group) (*sessions.Snapshot, Run, bool) {
	for _, r := range g.Runs {
		if r.Snapshot != nil {
			return r.Snapshot, r, true
		}
	}
	return nil, Run{}, false
}

// snapLabel is the "at step S (seed N)" part of a snapshot figure's title.
func snapLabel(g Group, r Run) string {
	s := fmt.Sprintf("at step %d (seed %d", r.SnapshotStep, r.Config.Seed)
	if len(g.Runs) > 1 {
		s += fmt.Sprintf(", first of %d seeds", len(g.Runs))
	}
	return s + ")"
}

// headLabel names head h of layer l, "L0H1".
func headLabel(l, h int) string { return fmt.Sprintf("L%dH%d", l, h) }

// colourRange is a colour map over [lo, hi] (widened when they are equal, so the map is
// valid).
func colourRange(cm palette.ColorMap, lo, hi float64) palette.ColorMap {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	if hi <= lo {
		lo, hi = lo-0.5, lo+0.5
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	return cm
}

// viridis is a sequential colour map of rising luminance (dark violet to yellow) whose
// every colour shows on white; it panics only if its fixed control points were invalid.
func viridis() palette.ColorMap {
	cm, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{R: 0x44, G: 0x01, B: 0x54, A: 255},
		color.NRGBA{R: 0x3b, G: 0x52, B: 0x8b, A: 255},
		color.NRGBA{R: 0x21, G: 0x91, B: 0x8c, A: 255},
		color.NRGBA{R: 0x5e, G: 0xc9, B: 0x62, A: 255},
		color.NRGBA{R: 0xfd, G: 0xe7, B: 0x25, A: 255},
	})
	if err != nil {
		panic(err)
	}
	return cm
}

// colourAt is cm's colour for v, clamped to its range (grey for NaN).
func colourAt(cm palette.ColorMap, v float64) color.Color {
	if math.IsNaN(v) {
		return color.Gray{Y: 160}
	}
	c, err := cm.At(math.Min(math.Max(v, cm.Min()), cm.Max()))
	if err != nil {
		return color.Gray{Y: 160}
	}
	return c
}

// colourBar is a plot holding a vertical colour bar for cm, labelled.
func colourBar(cm palette.ColorMap, label string) *plot.Plot {
	p := plot.New()
	p.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	p.HideX()
	p.Y.Tick.Marker = linearTicks{n: 6}
	p.Y.Label.Text = label
	return p
}

// grid is a row-major matrix for a heat map: column c at xs[c], row r at ys[r].
type grid struct {
	z      [][]float64 // [row][col]
	xs, ys []float64
}

// Dims implements plotter.GridXYZ.
func (g grid) Dims() (c, r int) { return len(g.xs), len(g.ys) }

// Z implements plotter.GridXYZ.
func (g grid) Z(c, r int) float64 {
	if c < len(g.z[r]) {
		return g.z[r][c]
	}
	return math.NaN()
}

// X implements plotter.GridXYZ.
func (g grid) X(c int) float64 { return g.xs[c] }

// Y implements plotter.GridXYZ.
func (g grid) Y(r int) float64 { return g.ys[r] }

// finiteRange is the smallest and largest finite values of z (NaN, NaN when none).
func finiteRange(z [][]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range z {
		for _, v := range row {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if lo > hi {
		return math.NaN(), math.NaN()
	}
	return lo, hi
}

// heatMap is a plot of the grid's heat map in cm (whose range it takes), NaN cells blank.
func heatMap(g grid, cm palette.ColorMap, title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker = linearTicks{n: 5, integer: true} // positions, heads, layers
	p.Y.Tick.Marker = linearTicks{n: 5, integer: true}
	hm := plotter.NewHeatMap(g, cm.Palette(256))
	hm.Min, hm.Max = cm.Min(), cm.Max()
	hm.NaN = color.White
	p.Add(hm)
	return p
}

// nums is a [][]Num as float64s (null as NaN).
func nums(m [][]sessions.Num) [][]float64 {
	out := make([][]float64, len(m))
	for i, r := range m {
		out[i] = make([]float64, len(r))
		for j, v := range r {
			out[i][j] = float64(v)
		}
	}
	return out
}

// indices is 0, 1, …, n−1 as float64s.
func indices(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i)
	}
	return out
}

// integerTicks labels the integer positions in [lo, hi] (every step-th), for heat-map axes.
type integerTicks struct{ step int }

// Ticks implements plot.Ticker.
func (t integerTicks) Ticks(lo, hi float64) []plot.Tick {
	s := max(t.step, 1)
	var out []plot.Tick
	for v := int(math.Ceil(lo)); float64(v) <= hi; v++ {
		if v%s == 0 {
			out = append(out, plot.Tick{Value: float64(v), Label: fmt.Sprint(v)})
		}
	}
	return out
}
