package reports

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// The files `windtunnel primitives` writes into its folder beside the sessions (and
// FileName, the report it links to).
const (
	PrimitivesTable = "primitives.md"
	PrimitivesJSON  = "primitives.json"
)

// Primitives is Paper I's primitives table as `windtunnel primitives` writes it: the budget,
// the preset it stands for, the budget in words (each task's steps), the seeds a cell and the
// cells (derived.PrimitiveTable).
type Primitives struct {
	Budget string                  `json:"budget"`
	Preset string                  `json:"preset"`
	Plan   string                  `json:"plan"`
	Seeds  int                     `json:"seeds"`
	Cells  []derived.PrimitiveCell `json:"cells"`
	// Figure is the table's figure, relative to the folder ("" for none).
	Figure string `json:"figure,omitempty"`
	// Curves are the figures of every seed's curve, one a task (figures.PrimitiveCurves),
	// relative to the folder.
	Curves []string `json:"curves,omitempty"`
}

// WritePrimitives writes p into dir as PrimitivesTable (markdown, naming the command that
// made it with dir as its --out) and PrimitivesJSON (sessions.WriteOutput), and returns the
// JSON and the paths written.
func WritePrimitives(dir string, p Primitives) (js []byte, paths []string, err error) {
	js, err = json.MarshalIndent(p, "", " ")
	if err != nil {
		return nil, nil, fmt.Errorf("primitives: %w", err)
	}
	js = append(js, '\n')
	fig := ""
	if p.Figure != "" {
		fig = fmt.Sprintf("![Paper I's primitives, budget %s](%s)\n\n", p.Budget, p.Figure)
	}
	curves := ""
	for _, c := range p.Curves {
		curves += fmt.Sprintf("![Every seed's curve, budget %s](%s)\n\n", p.Budget, c)
	}
	md := fmt.Sprintf("# Paper I's primitives, budget %s (%d seeds a cell)\n\n%s.\n\n%s%s\n%s"+
		"Made by `windtunnel primitives --budget %s --seeds %d --out %s`; the claims and figures: [%s](%s).\n",
		p.Budget, p.Seeds, p.Plan, fig, derived.FormatPrimitives(p.Cells), curves, p.Budget, p.Seeds, dir, FileName, FileName)
	for _, f := range []struct {
		name string
		b    []byte
	}{{PrimitivesTable, []byte(md)}, {PrimitivesJSON, js}} {
		path := filepath.Join(dir, f.name)
		if err := sessions.WriteOutput(path, f.b, 0o644); err != nil {
			return nil, nil, fmt.Errorf("primitives: %w", err)
		}
		paths = append(paths, path)
	}
	return js, paths, nil
}
