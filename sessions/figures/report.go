package figures

import (
	"path/filepath"

	"windtunnel/sessions"
	"windtunnel/sessions/reports"
)

// ForReport is the reports.Options.Figures of `windtunnel report` and `primitives`: it
// renders plot's figures of the sessions the report read (files: those it skipped are not
// drawn either) as PNG into dir/reports.FigureDir for the report to embed.
func ForReport(dir string, files []string) ([]reports.Figure, error) {
	runs, _, err := LoadPaths(files) // files named: none skipped
	if err != nil {
		return nil, err
	}
	fig := filepath.Join(dir, reports.FigureDir) // ours: a link planted there is refused
	if err := sessions.MakeOutputDir(fig, 0o755); err != nil {
		return nil, err
	}
	drawn, err := Render(runs, fig, Options{Format: "png"})
	if err != nil {
		return nil, err
	}
	out := make([]reports.Figure, len(drawn))
	for i, f := range drawn {
		out[i] = reports.Figure{Path: f.Path, Caption: f.Title}
	}
	return out, nil
}
