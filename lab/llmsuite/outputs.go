package llmsuite

import (
	"fmt"
	"path/filepath"

	"windtunnel/sessions/figures"
	"windtunnel/sessions/llmrun"
	"windtunnel/sessions/reports"
)

// Written are the files WriteOutputs wrote: the record, the report and the figures.
type Written struct {
	Record, Report string
	Figures        []figures.File
}

// WriteOutputs writes the record of r (llmrun.FileName), its figures (figures.RenderLLM, in
// opt's format and size) and its report (reports.WriteLLM) into dir.
func WriteOutputs(r *llmrun.Result, dir string, opt figures.Options) (Written, error) {
	w := Written{Record: filepath.Join(dir, llmrun.FileName)}
	if err := llmrun.Write(w.Record, r); err != nil {
		return w, err
	}
	files, err := figures.RenderLLM(r, dir, opt)
	if err != nil {
		return w, fmt.Errorf("llm: %w", err)
	}
	w.Figures = files
	figs := make([]reports.Figure, 0, len(files))
	for _, fl := range files {
		figs = append(figs, reports.Figure{Path: fl.Path, Caption: fl.Title})
	}
	w.Report, err = reports.WriteLLM(r, w.Record, dir, figs)
	return w, err
}
