package figures

import (
	"fmt"
	"image/color"
	"slices"

	"windtunnel/sessions/derived"
)

// The fills of a primitives cell: its verdict ✓, slow or ✗.
var (
	passFill = color.RGBA{R: 200, G: 230, B: 201, A: 255}
	slowFill = color.RGBA{R: 255, G: 228, B: 181, A: 255}
	failFill = color.RGBA{R: 244, G: 199, B: 195, A: 255}
)

// Primitives draws the primitives table (`windtunnel primitives`) as Paper I lays it out,
// models × tasks, each cell its mean metric ± sd, its verdict (pass, slow or FAIL: the rule
// of derived.PrimitiveCellOf) with the seeds passing and the step of the first pass, and
// Paper I's verdict, into dir/primitives.FORMAT; title names the budget. tasks and models are
// the grid planned, in order (nil: those of the cells): a planned cell not among cells (its
// runs not finished) reads "not trained yet".
func Primitives(cells []derived.PrimitiveCell, tasks, models []string, title, dir string, opt Options) (File, error) {
	opt, err := opt.normalised()
	if err != nil {
		return File{}, err
	}
	if len(cells) == 0 {
		return File{}, fmt.Errorf("figures: primitives: no cells")
	}
	tasks, models = slices.Clip(tasks), slices.Clip(models) // appendNew never writes the caller's
	byCell := map[[2]string]derived.PrimitiveCell{}
	plain := make([]derived.Cell, len(cells))
	for i, c := range cells {
		byCell[[2]string{c.Task, c.Model}] = c
		plain[i] = c.Cell
		tasks, models = appendNew(tasks, c.Task), appendNew(models, c.Model)
	}
	p, grid := tablePlot(title, tasks, models, plain)
	grid.empty = "not trained yet"
	grid.cellText = func(c derived.Cell) ([]string, color.Color) { return primitiveText(byCell[[2]string{c.Task, c.Model}]) }
	files, err := writeFigures([]figure{{name: "primitives", title: title, plot: p}}, dir, opt)
	if err != nil {
		return File{}, err
	}
	return files[0], nil
}

// primitiveText is a primitives cell's lines and fill: the metric, the verdict with the
// seeds passing and the first pass, Paper I's verdict.
func primitiveText(c derived.PrimitiveCell) ([]string, color.Color) {
	score := scoreLine(c.Cell)
	verdict, fill := verdictWord(c.Verdict), color.Color(failFill)
	switch c.Verdict {
	case derived.VerdictPass:
		fill = passFill
	case derived.VerdictSlow:
		fill = slowFill
	}
	line := fmt.Sprintf("%s %d/%d seeds", verdict, c.SeedsPassed, len(c.Seeds))
	if c.PassStep >= 0 {
		line += fmt.Sprintf(", at step %d of %d", c.PassStep, c.Steps)
	}
	lines := []string{score, line}
	if w := derived.PaperWord(c.Task, c.Model); w != "" {
		lines = append(lines, "paper: "+w)
	}
	return lines, fill
}
