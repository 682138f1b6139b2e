package derived

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"windtunnel/sessions"
)

// TableHead is what a printed architecture table says of its runs: the preset, the seeds
// asked for, the wall time in seconds and the folder of the sessions.
type TableHead struct {
	Preset string
	Seeds  int
	WallS  float64
	Dir    string
}

// WriteTable prints the architecture table of cells as `windtunnel compare` does: a line
// of the preset, the seeds the cells' runs have (TableSeeds), the wall time and the folder,
// then the table (FormatTable); asJSON: one JSON object of the head and the cells instead.
func WriteTable(w io.Writer, h TableHead, cells []Cell, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(struct {
			Preset string  `json:"preset"`
			Seeds  int     `json:"seeds"`
			WallS  float64 `json:"wall_s"`
			Dir    string  `json:"sessions"`
			Cells  []Cell  `json:"cells"`
		}{h.Preset, h.Seeds, math.Round(h.WallS*10) / 10, h.Dir, cells})
	}
	seedsLabel, _ := TableSeeds(cells) // from the runs of the cells, not the flag
	fmt.Fprintf(w, "preset %s, seeds %s, %.0f s, sessions in %s\n", h.Preset, seedsLabel, h.WallS, sessions.SafeText(h.Dir))
	_, err := io.WriteString(w, FormatTable(cells))
	return err
}
