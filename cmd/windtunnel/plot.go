package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
	"windtunnel/sessions/figures"
)

// plotFlags are the settings of `windtunnel plot`.
type plotFlags struct {
	out           string
	format        string
	width, height int
	asJSON        bool
}

func newPlotCmd(stdout, stderr io.Writer) *cobra.Command {
	var f plotFlags
	c := &cobra.Command{
		Use:   "plot FILE_OR_DIR... --out DIR",
		Short: "Draw a run's figures from its session files (PNG, SVG or PDF)",
		Long: "plot reads sessions (files, or folders of *" + sessions.Suffix + " files; a folder's unfinished runs\n" +
			"are skipped with a note) and writes their figures into --out:\n" +
			"per configuration (its seeds drawn as mean ± sd) bit error (a), (b) and KL vs step on a log axis\n" +
			"with the pass threshold and, for a bijection, the context-free level; model vs Bayes entropy per\n" +
			"position at the last evaluation; an hmm run's KL per position at each evaluated K; from the\n" +
			"first seed's newest snapshot the geometry figures (keys, manifold, ablation, frame, jlens, qk);\n" +
			"the architecture table (models × tasks, pass/fail) over all the runs; and, for each pair of\n" +
			"transformer configurations that differ only in --value-lr, Paper II's two arms: KL vs step with\n" +
			"the baseline's final KL as the target line. A task and model run\n" +
			"in several configurations gets titles naming what differs (\"bijection transformer, steps 300\").\n" +
			"It prints each file written.",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s takes one or more session files or folders", commandName(c))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			return runPlot(args, f, stdout, stderr)
		},
	}
	fs := c.Flags()
	fs.StringVar(&f.out, "out", "", "folder for the figures (created if needed; required)")
	fs.StringVar(&f.format, "format", "png", "figure format: "+strings.Join(figures.Formats(), ", "))
	fs.IntVar(&f.width, "width", figures.DefaultWidth, "figure width in pixels")
	fs.IntVar(&f.height, "height", figures.DefaultHeight, "figure height in pixels")
	jsonFlag(fs, &f.asJSON, "the figures written as JSON")
	return c
}

// runPlot checks the flags, reads the sessions and writes the figures.
func runPlot(paths []string, f plotFlags, stdout, stderr io.Writer) error {
	if !figures.ValidFormat(f.format) {
		return usagef("--format %q: want one of %s", f.format, strings.Join(figures.Formats(), ", "))
	}
	if f.out == "" {
		return usagef("--out is required: the folder for the figures")
	}
	if err := figures.CheckSize(f.width, f.height); err != nil {
		return usageError{Err: err}
	}
	runs, skipped, err := figures.LoadPaths(paths)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "plot: skipped %s\n", sessions.SafeLines(s))
	}
	files, err := figures.Render(runs, f.out, figures.Options{Format: f.format, Width: f.width, Height: f.height})
	if err != nil {
		return err
	}
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(files); err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		return nil
	}
	for _, fl := range files {
		fmt.Fprintf(stdout, "%s\t%s\n", sessions.SafeText(fl.Path), sessions.SafeText(fl.Title))
	}
	return nil
}
