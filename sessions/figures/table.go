package figures

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/diagnostics"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
)

// tableFigure is the architecture table over all runs (derived.Table): one cell per model ×
// task holding the mean bit error (a) (accuracy for recall) ± sd over seeds and the verdict,
// green where it passes, red where it fails, grey where there is no run. A model and task
// run in several configurations (the rule of sessions/derived) has its cell split in one
// band per configuration, each with its own seeds and verdict, named by what differs. The
// cells are no larger than maxCellW × maxCellH, centred on the page, their text shrunk to
// fit a small page.
func tableFigure(runs []Run) (figure, bool) {
	f, _, ok := buildTable(runs)
	return f, ok
}

// buildTable is tableFigure with the grid it draws (whose cells it records as drawn).
func buildTable(runs []Run) (figure, *tableGrid, bool) {
	var scores []derived.RunScore
	var tasks, models []string
	for i, r := range runs {
		if len(r.Evals) == 0 {
			continue
		}
		e := r.Evals[len(r.Evals)-1].Eval
		scores = append(scores, derived.RunScore{Task: r.Config.Task, Model: r.Config.Model, Seed: r.Config.Seed,
			Params: r.Meta.Params, Steps: r.Evals[len(r.Evals)-1].Step, Session: r.Path, Key: groupKey(r, i),
			Scores: diagnostics.Scores{BitErrorPosition: e.BitErrorPosition, BitErrorSample: e.BitErrorSample,
				KLBits: e.KLBits, TVD: e.TVD, Accuracy: e.Accuracy}})
		tasks = appendNew(tasks, r.Config.Task)
		models = appendNew(models, r.Config.Model)
	}
	if len(scores) == 0 {
		return figure{}, nil, false
	}
	tasks = ordered(tasks, []string{"bijection", "hmm", "recall"})
	models = ordered(models, arch.PaperKinds())
	title := "Architecture table: mean bit error (a), accuracy for recall (pass/fail)"
	p, grid := tablePlot(title, tasks, models, derived.Table(scores, tasks, models))
	return figure{name: "table", title: title, plot: p}, grid, true
}

// tablePlot is a page titled title holding the grid of cells, models × tasks, each task's
// heading naming its primitive; the grid's cellText is left to the caller (nil: cellText).
func tablePlot(title string, tasks, models []string, cells []derived.Cell) (*plot.Plot, *tableGrid) {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = titleSize
	p.HideAxes()
	heads := make([]string, len(tasks))
	for i, t := range tasks {
		heads[i] = t
		if pr, ok := derived.PrimitiveOf(t); ok {
			heads[i] = fmt.Sprintf("%s\n(%s)", t, pr.Name)
		}
	}
	grid := &tableGrid{tasks: tasks, heads: heads, models: models, cells: cells, text: p.Title.TextStyle}
	grid.text.Font.Size = vg.Points(11)
	grid.text.XAlign, grid.text.YAlign = draw.XCenter, draw.YCenter
	p.Add(grid)
	return p, grid
}

// appendNew appends s unless it is in xs.
func appendNew(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}

// ordered puts the names found in order first, in that order, then the rest as they came.
func ordered(names, order []string) []string {
	var out []string
	for _, o := range order {
		for _, n := range names {
			if n == o {
				out = append(out, n)
			}
		}
	}
	for _, n := range names {
		out = appendNew(out, n)
	}
	return out
}

// The largest cell of the table: a table of one run is a cell, not the page.
var (
	maxCellW = vg.Points(190)
	maxCellH = vg.Points(80)
	// minCellText is the smallest font a cell's text shrinks to.
	minCellText = vg.Points(6)
)

// tableGrid draws the table itself: a header row (task and primitive), a column of model
// names, and the cells, the first model on top, centred across the data area under its top.
type tableGrid struct {
	tasks, heads, models []string
	cells                []derived.Cell
	text                 draw.TextStyle
	// cellText gives a cell's lines and fill (nil: cellText, the architecture table's).
	cellText func(derived.Cell) ([]string, color.Color)
	// empty is the text of a task and model without a cell ("": "no run").
	empty string
	// cellRects are the cells (or bands) as last drawn, and rowBands the bands of the row
	// each is in (its height's allowance: that many times maxCellH), for tests.
	cellRects []vg.Rectangle
	rowBands  []int
}

// Plot implements plot.Plotter.
func (t *tableGrid) Plot(c draw.Canvas, p *plot.Plot) {
	head := t.text
	head.Font.Size = vg.Points(12)
	pad := vg.Points(6)
	rowW := vg.Length(0)
	for _, m := range append([]string{"model"}, t.models...) {
		rowW = max(rowW, head.Width(m)+2*pad)
	}
	headH := vg.Length(0)
	for _, h := range t.heads {
		headH = max(headH, head.Height(h)+2*pad)
	}
	// Each row is as high as its most banded cell needs, every band at most maxCellH.
	bands, total := make([]int, len(t.models)), 0
	for j, model := range t.models {
		for _, task := range t.tasks {
			bands[j] = max(bands[j], len(t.find(task, model)), 1)
		}
		total += bands[j]
	}
	W, H := c.Max.X-c.Min.X, c.Max.Y-c.Min.Y
	cw := min(maxCellW, (W-rowW)/vg.Length(len(t.tasks)))
	bh := min(maxCellH, (H-headH)/vg.Length(total))
	x0 := c.Min.X + (W-rowW-cw*vg.Length(len(t.tasks)))/2 + rowW // the cells' left edge
	top := c.Max.Y - headH                                       // under the header row
	hs := fitStyle(head, t.heads, cw-pad, headH)
	c.FillText(head, vg.Point{X: x0 - rowW/2, Y: top + headH/2}, "model")
	t.cellRects, t.rowBands = t.cellRects[:0], t.rowBands[:0]
	for i, task := range t.tasks {
		xa, xb := x0+cw*vg.Length(i), x0+cw*vg.Length(i+1)
		c.FillText(hs, vg.Point{X: (xa + xb) / 2, Y: top + headH/2}, t.heads[i])
		yb := top
		for j, model := range t.models {
			ch := bh * vg.Length(bands[j])
			if i == 0 {
				c.FillText(head, vg.Point{X: x0 - rowW/2, Y: yb - ch/2}, model)
			}
			cells := t.find(task, model)
			if len(cells) == 0 {
				empty := t.empty
				if empty == "" {
					empty = "no run"
				}
				t.box(c, xa, xb, yb-ch, yb, []string{empty}, color.Gray{Y: 235})
				t.rowBands = append(t.rowBands, bands[j])
			}
			h := ch / vg.Length(max(len(cells), 1)) // one band per configuration, the first on top
			for k, cell := range cells {
				text := t.cellText
				if text == nil {
					text = cellText
				}
				lines, fill := text(cell)
				t.box(c, xa, xb, yb-vg.Length(k+1)*h, yb-vg.Length(k)*h, lines, fill)
				t.rowBands = append(t.rowBands, bands[j])
			}
			yb -= ch
		}
	}
}

// fitStyle is sty shrunk (down to minCellText) so that every one of texts fits w × h.
func fitStyle(sty draw.TextStyle, texts []string, w, h vg.Length) draw.TextStyle {
	f := 1.0
	for _, s := range texts {
		if tw := sty.Width(s); tw > w {
			f = math.Min(f, float64(w/tw))
		}
		if th := sty.Height(s); th > h {
			f = math.Min(f, float64(h/th))
		}
	}
	sty.Font.Size = max(sty.Font.Size*vg.Length(f), minCellText)
	return sty
}

// box fills the rectangle x0..x1 × y0..y1 with a white border and centres lines in it, in
// a font that fits.
func (t *tableGrid) box(c draw.Canvas, x0, x1, y0, y1 vg.Length, lines []string, fill color.Color) {
	t.cellRects = append(t.cellRects, vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x1, Y: y1}})
	c.FillPolygon(fill, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(2)},
		[]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
	text := strings.Join(lines, "\n")
	sty := fitStyle(t.text, []string{text}, x1-x0-vg.Points(6), y1-y0-vg.Points(4))
	c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, text)
}

// find returns the cells of task and model, one per configuration.
func (t *tableGrid) find(task, model string) []derived.Cell {
	var out []derived.Cell
	for _, c := range t.cells {
		if c.Task == task && c.Model == model {
			out = append(out, c)
		}
	}
	return out
}

// cellText is a cell's lines (score, verdict with seeds passed, Paper I's verdict) and fill.
func cellText(c derived.Cell) ([]string, color.Color) {
	score := scoreLine(c)
	verdict, fill := "FAIL", color.Color(failFill)
	if c.Pass {
		verdict, fill = "pass", passFill
	}
	lines := []string{score, fmt.Sprintf("%s %d/%d seeds", verdict, c.SeedsPassed, len(c.Seeds))}
	if c.Config != "" {
		lines = append([]string{c.Config}, lines...)
	}
	if c.Paper != "" {
		lines = append(lines, "paper: "+derived.PaperWord(c.Task, c.Model))
	}
	return lines, fill
}

// scoreLine is a cell's mean metric ± sd over its seeds: bit error (a), accuracy for recall;
// a bit error under 0.01, or under 0.1 with an sd under 0.0005 (the precision budget's), with
// four decimals, not to read 0.003±0.000 or 0.012±0.000.
func scoreLine(c derived.Cell) string {
	if c.Primitive.Metric == "accuracy" {
		return "accuracy " + c.Accuracy.String(3)
	}
	prec := 3
	if m := math.Abs(c.BitErrorA.Mean); m < 0.01 || (m < 0.1 && c.BitErrorA.SD < 0.0005) {
		prec = 4
	}
	return "(a) " + c.BitErrorA.String(prec) + " bits"
}
