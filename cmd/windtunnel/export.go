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
			if format != "csv" && format != "jsonl" {
				return usagef("--format %q: want csv or jsonl", format)
			}
			switch what {
			case "scalars", "per-position", "events":
			case "snapshots":
				if format != "jsonl" {
					return usagef("--what snapshots: nested tables; use --format jsonl")
				}
			default:
				return usagef("--what %q: want scalars, per-position, snapshots or events", what)
			}
			r, err := sessions.Open(args[0])
			if err != nil {
				return err
			}
			defer r.Close()
			bw := bufio.NewWriter(stdout)
			if what == "events" {
				err = export.Events(r, bw, format)
			} else {
				err = export.Records(r, bw, format, what)
			}
			if err != nil {
				return err
			}
			return bw.Flush()
		},
	}
	c.Flags().StringVar(&format, "format", "csv", "csv or jsonl")
	c.Flags().StringVar(&what, "what", "scalars", "scalars (one row per record), per-position (one row per evaluation and scored position), snapshots (one JSON line per geometry snapshot, as recorded) or events (operator actions)")
	return c
}
