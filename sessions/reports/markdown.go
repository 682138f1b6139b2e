package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"windtunnel/sessions"
)

// Figure is one figure to embed: Path is relative to the report's folder (an absolute path
// inside it is made relative), Caption its alt text.
type Figure struct {
	Path, Caption string
}

// Options configure Write.
type Options struct {
	// Figures, when set, renders the figures of the sessions the report read (files, the
	// ones skipped left out) into the report's folder dir and returns them; they are
	// embedded as markdown image links.
	Figures func(dir string, files []string) ([]Figure, error)
}

// FileName is the report's file name inside its folder.
const FileName = "report.md"

// Write loads the sessions of paths, builds the report and writes DIR/report.md; it returns
// the report and the file written.
func Write(paths []string, dir string, opt Options) (Report, string, error) {
	runs, skipped, err := Load(paths)
	if err != nil {
		return Report{}, "", err
	}
	ts, tsSkipped, err := LoadTimescales(paths)
	if err != nil {
		return Report{}, "", err
	}
	skipped = append(skipped, tsSkipped...)
	if len(runs) == 0 && len(ts) == 0 {
		why := ""
		if len(skipped) > 0 { // say why each was skipped (unreadable, not finished)
			why = "\n  skipped " + strings.Join(skipped, "\n  skipped ")
		}
		return Report{}, "", fmt.Errorf("report: no finished sessions in %s%s", strings.Join(paths, ", "), why)
	}
	rep := Build(runs, skipped, ts...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Report{}, "", fmt.Errorf("report: %w", err)
	}
	var figs []Figure
	if opt.Figures != nil {
		files := make([]string, len(runs))
		for i, r := range runs {
			files[i] = r.Path
		}
		if figs, err = opt.Figures(dir, files); err != nil {
			return Report{}, "", fmt.Errorf("report: figures: %w", err)
		}
	}
	path := filepath.Join(dir, FileName)
	if err := sessions.WriteOutput(path, []byte(Markdown(rep, figs, dir)), 0o644); err != nil {
		return Report{}, "", fmt.Errorf("report: %w", err)
	}
	return rep, path, nil
}

// cell escapes a table cell's pipes.
func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// Markdown renders the report; figure paths are made relative to dir.
func Markdown(rep Report, figs []Figure, dir string) string {
	var b strings.Builder
	b.WriteString("# Paper I reproduction report\n\n")
	b.WriteString("Paper I: \"The Bayesian Geometry of Transformer Attention\" (arXiv 2512.22471). Each measured value is\n" +
		"mean ± sd over the sessions listed in its row (n seeds); the per-session values are under the table.\n" +
		"Sessions are pooled only when they are one configuration (their stored configurations equal but for the seed,\n" +
		"workers, BLAS, cadences and geometry size); a claim measured in several configurations has a row for each,\n" +
		"its claim naming what differs.\n\n")
	b.WriteString("| # | claim | paper | authors' code | bench (mean ± sd, n) | sessions | configuration | verdict | reason |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for i, r := range rep.Rows {
		var files []string
		for _, v := range r.Values {
			files = append(files, v.File)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", i+1, cell(r.Claim), cell(r.Paper), cell(r.Authors),
			cell(r.Measured), cell(strings.Join(files, ", ")), cell(r.Config), r.Verdict, cell(r.Reason))
	}
	b.WriteString("\n## Per-session values\n\n")
	for i, r := range rep.Rows {
		if len(r.Values) == 0 {
			continue
		}
		var parts []string
		for _, v := range r.Values {
			parts = append(parts, fmt.Sprintf("%s %.6g", v.File, v.V))
		}
		fmt.Fprintf(&b, "- row %d: %s\n", i+1, strings.Join(parts, "; "))
	}
	if len(figs) > 0 {
		b.WriteString("\n## Figures\n\n")
		for _, f := range figs {
			p := f.Path
			if filepath.IsAbs(p) {
				if rel, err := filepath.Rel(dir, p); err == nil {
					p = rel
				}
			}
			fmt.Fprintf(&b, "![%s](%s)\n\n", f.Caption, filepath.ToSlash(p))
		}
	}
	b.WriteString("\n## Commands that regenerate every number\n\n```\n")
	for _, c := range rep.Commands {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n\n## Known departures from the authors' setup\n\n")
	for _, d := range Departures() {
		fmt.Fprintf(&b, "- **%s**: %s\n", d.Topic, d.Text)
	}
	if len(rep.Skipped) > 0 {
		b.WriteString("\n## Sessions left out\n\n")
		for _, s := range rep.Skipped {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	return b.String()
}
