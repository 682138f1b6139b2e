package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
	"windtunnel/sessions/figures"
	"windtunnel/sessions/reports"
)

// newReportCmd builds `windtunnel report RUNS_OR_DIRS... --out DIR`; the figures are the
// plot command's, drawn as PNG into DIR/fig.
func newReportCmd(stdout, stderr io.Writer) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "report RUNS_OR_DIRS... --out DIR",
		Short: "Write Paper I's claims against the measured sessions as DIR/report.md",
		Long: "report reads finished sessions (files, or folders of *" + sessions.Suffix + ") and writes DIR/report.md: one table\n" +
			"of Paper I's claims (architecture table, the MLP's 1.107 bits, HMM length generalisation, key\n" +
			"orthogonality, value manifold |ρ|, frame-precision settle steps), each with the paper's number,\n" +
			"the authors' code's, the bench's mean ± sd over seeds with its session files, the configuration\n" +
			"and a verdict (reproduced, consistent but not diagnostic, not reproduced, not measured) with its\n" +
			"reason; then the commands that regenerate every number and the bench's known departures from the\n" +
			"authors' setup. Sessions of one configuration and seed (a re-run, a copied folder) count once.",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s takes one or more session files or folders", commandName(c))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("%s: --out DIR is required", commandName(cmd))
			}
			rep, path, err := reports.Write(args, out, reports.Options{Figures: figures.ForReport})
			if err != nil {
				return err
			}
			for _, s := range rep.Skipped {
				fmt.Fprintf(stderr, "report: skipped: %s\n", sessions.SafeLines(s))
			}
			_, err = fmt.Fprintf(stdout, "%s (%d claims)\n", sessions.SafeText(path), len(rep.Rows))
			return err
		},
	}
	c.Flags().StringVar(&out, "out", "", "folder to write report.md (and figures) into")
	return c
}
