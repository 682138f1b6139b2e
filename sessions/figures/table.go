package figures

import (
	"fmt"
	"image/color"
	"strings"
	"windtunnel/sessions/derived"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"windtunnel/diagnostics"
)

// tableFigure is the architecture table over all runs (derived.Table): one cell per model ×
// task holding the mean bit error (a) (accuracy for recall) ± sd over seeds and the verdict,
// green where it passes, red where it fails, grey where there is no run. A model and task
// run in several configurations (the rule of sessions/derived) has its cell split in one
// band per configuration, each with its own seeds and verdict, named by what differs.
func tableFigure(runs []Run) (figure, bool) {
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
		return figure{}, false
	}
	tasks = ordered(tasks, []string{"bijection", "hmm", "recall"})
	models = ordered(models, []string{"transformer", "mamba", "lstm", "mlp"})
	cells := derived.Table(scores, tasks, models)
	title := "Architecture table: mean bit error (a), accuracy for recall (pass/fail)"
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "task (primitive)"
	p.Y.Label.Text = "model"
	xs := make([]string, len(tasks))
	for i, t := range tasks {
		xs[i] = t
		if pr, ok := derived.PrimitiveOf(t); ok {
			xs[i] = fmt.Sprintf("%s (%s)", t, pr.Name)
		}
	}
	rows := make([]string, len(models)) // the first model on top, as a table reads
	for i, m := range models {
		rows[len(models)-1-i] = m
	}
	p.NominalX(xs...)
	p.NominalY(rows...)
	p.X.Tick.Length, p.Y.Tick.Length = 0, 0
	p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size = vg.Points(12), vg.Points(12)
	p.Title.TextStyle.Font.Size = vg.Points(13)
	grid := tableGrid{tasks: tasks, models: rows, cells: cells, text: p.X.Tick.Label}
	grid.text.XAlign, grid.text.YAlign = draw.XCenter, draw.YCenter
	p.Add(grid)
	return figure{name: "table", title: title, plot: p}, true
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

// tableGrid draws the table's cells at the nominal axis positions (task i, model j).
type tableGrid struct {
	tasks, models []string
	cells         []derived.Cell
	text          draw.TextStyle
}

// DataRange implements plot.DataRanger: half a cell beyond the first and last positions.
func (t tableGrid) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(len(t.tasks)) - 0.5, -0.5, float64(len(t.models)) - 0.5
}

// Plot implements plot.Plotter.
func (t tableGrid) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, task := range t.tasks {
		for j, model := range t.models {
			x0, x1 := trX(float64(i)-0.5), trX(float64(i)+0.5)
			y0, y1 := trY(float64(j)-0.5), trY(float64(j)+0.5)
			cells := t.find(task, model)
			if len(cells) == 0 {
				t.box(c, x0, x1, y1, y0, []string{"no run"}, color.Gray{Y: 235})
				continue
			}
			h := (y1 - y0) / vg.Length(len(cells)) // one band per configuration, the first on top
			for k, cell := range cells {
				lines, fill := cellText(cell)
				t.box(c, x0, x1, y1-vg.Length(k+1)*h, y1-vg.Length(k)*h, lines, fill)
			}
		}
	}
}

// box fills the rectangle x0..x1 × y0..y1 with a white border and centres lines in it.
func (t tableGrid) box(c draw.Canvas, x0, x1, y0, y1 vg.Length, lines []string, fill color.Color) {
	c.FillPolygon(fill, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(2)},
		[]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
	c.FillText(t.text, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, strings.Join(lines, "\n"))
}

// find returns the cells of task and model, one per configuration.
func (t tableGrid) find(task, model string) []derived.Cell {
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
	score := "(a) " + c.BitErrorA.String(3) + " bits"
	if c.Primitive.Metric == "accuracy" {
		score = "accuracy " + c.Accuracy.String(3)
	}
	verdict, fill := "FAIL", color.Color(color.RGBA{R: 244, G: 199, B: 195, A: 255})
	if c.Pass {
		verdict, fill = "pass", color.RGBA{R: 200, G: 230, B: 201, A: 255}
	}
	lines := []string{score, fmt.Sprintf("%s %d/%d seeds", verdict, c.SeedsPassed, len(c.Seeds))}
	if c.Config != "" {
		lines = append([]string{c.Config}, lines...)
	}
	if c.Paper != "" {
		lines = append(lines, "paper: "+c.Paper)
	}
	return lines, fill
}
