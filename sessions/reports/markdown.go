package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"windtunnel/sessions"
)

// Figure is one figure to embed: Path is its file as written (absolute, or relative to the
// working folder, as figures.Render and figures.RenderLLM return it), Caption its alt text.
// Its link in report.md is relative to the report's own folder (figureLink).
type Figure struct {
	Path, Caption string
}

// figureLink is the link to the figure file path from DIR/report.md: path relative to dir,
// both made absolute first, so the link resolves from the report's folder whatever dir is
// (relative, absolute or "."), and whichever working folder the report is read from; "/"
// separators. The path as given when it cannot be made relative (another volume).
func figureLink(dir, path string) string {
	ad, err := filepath.Abs(dir)
	if err != nil {
		return filepath.ToSlash(path)
	}
	ap, err := filepath.Abs(path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	rel, err := filepath.Rel(ad, ap)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// writeFigures writes the figures section of a report in dir: a markdown image link per
// figure (figureLink), its caption escaped as a table cell; nothing without figures.
func writeFigures(b *strings.Builder, dir string, figs []Figure) {
	if len(figs) == 0 {
		return
	}
	b.WriteString("\n## Figures\n\n")
	for _, f := range figs {
		fmt.Fprintf(b, "![%s](%s)\n\n", cell(f.Caption), figureLink(dir, f.Path))
	}
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

// FigureDir is the folder inside the report's folder that its figures are drawn into
// (Options.Figures).
const FigureDir = "fig"

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
		once := countOnce(runs) // a replicate's copies drawn once, as counted once
		files := make([]string, len(once))
		for i, r := range once {
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

// Markdown renders the report written in dir; figure links are relative to dir (figureLink).
func Markdown(rep Report, figs []Figure, dir string) string {
	var b strings.Builder
	b.WriteString("# Paper I reproduction report\n\n")
	b.WriteString("Paper I: \"The Bayesian Geometry of Transformer Attention\" (arXiv 2512.22471). Each measured value is\n" +
		"mean ± sd over the sessions listed in its row (n seeds); the per-session values are under the table.\n" +
		"Sessions are pooled only when they are one configuration (their stored configurations equal but for the seed,\n" +
		"workers, BLAS, cadences and geometry size); a claim measured in several configurations has a row for each,\n" +
		"its claim naming what differs. Sessions of one configuration and one seed are copies of one experiment and\n" +
		"count once (\"seed 1 (2 copies: …)\"). Claims about how a model does its task (its geometry) are judged only\n" +
		"on runs that learnt the task. Verdicts: *reproduced* — the bench meets the paper's criterion and its null\n" +
		"does not; *consistent, not diagnostic* — the bench meets it but so does the null (or no null was recorded);\n" +
		"*not reproduced*; *not measured*, with the reason. The null of a trained run is the same run before it learnt:\n" +
		"its first evaluation or earliest snapshot (no session records the untrained model; key orthogonality is\n" +
		"measured against the model at initialisation); for Paper II's speed-up, the spread of the steps across seeds.\n\n")
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
	writeFigures(&b, dir, figs)
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
