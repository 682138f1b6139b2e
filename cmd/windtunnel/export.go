package main

import (
	"bufio"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
	"windtunnel/sessions/export"
)

func newExportCmd(stdout io.Writer) *cobra.Command {
	var format, what string
	c := &cobra.Command{
		Use:   "export FILE",
		Short: "Write a session's scalars, per-position curves, snapshots or events as CSV or JSON Lines on stdout",
		Args:  oneFile,
		RunE: func(_ *cobra.Command, args []string) error {
			if err := export.Check(format, what); err != nil {
				return usageError{err}
			}
			r, err := sessions.Open(args[0])
			if err != nil {
				return err
			}
			defer r.Close()
			bw := bufio.NewWriter(stdout)
			if err := export.Write(r, bw, format, what); err != nil {
				return err
			}
			return bw.Flush()
		},
	}
	c.Flags().StringVar(&format, "format", "csv", "csv or jsonl")
	c.Flags().StringVar(&what, "what", "scalars", "scalars (one row per record), per-position (one row per evaluation and scored position), snapshots (one JSON line per geometry snapshot, as recorded) or events (operator actions)")
	return c
}
