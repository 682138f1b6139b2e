package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
	"windtunnel/sessions/export"
)

func newExportCmd(stdout io.Writer) *cobra.Command {
	var format, what, out string
	var asJSON bool
	c := &cobra.Command{
		Use:   "export FILE",
		Short: "Write a session's scalars, per-position curves, snapshots or events as CSV or JSON Lines on stdout, or sessions as TensorBoard event files",
		Long: "export writes one session's records or events as CSV or JSON Lines on stdout. With --format tensorboard\n" +
			"--out DIR it takes session files or folders of them and writes each session's scalars (and a histogram\n" +
			"of its heads' attention entropy at each snapshot) as a TensorBoard event file in DIR/<run>/, the run\n" +
			"named by the file (a folder's sessions: folder/file), so that `tensorboard --logdir DIR` shows them;\n" +
			"it prints each file written.",
		Args: func(c *cobra.Command, args []string) error {
			if format == "tensorboard" {
				if len(args) == 0 {
					return usagef("%s --format tensorboard takes one or more session files or folders", commandName(c))
				}
				return nil
			}
			return oneFile(c, args)
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if err := export.Check(format, what); err != nil {
				return usageError{Err: err}
			}
			if format == "tensorboard" {
				return exportTensorBoard(args, out, asJSON, stdout)
			}
			if out != "" {
				return usagef("--out is for --format tensorboard; CSV and JSON Lines go to stdout")
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
	c.Flags().StringVar(&format, "format", "csv", "csv, jsonl or tensorboard (event files in --out)")
	c.Flags().StringVar(&what, "what", "scalars", "scalars (one row per record), per-position (one row per evaluation and scored position), snapshots (one JSON line per geometry snapshot, as recorded) or events (operator actions)")
	c.Flags().StringVar(&out, "out", "", "with --format tensorboard: the log folder (created if needed) the event files go into, one folder per run")
	jsonFlag(c.Flags(), &asJSON, "with --format tensorboard: the files written as JSON")
	return c
}

// exportTensorBoard writes the sessions of paths as TensorBoard event files into out and
// prints each file written.
func exportTensorBoard(paths []string, out string, asJSON bool, stdout io.Writer) error {
	if out == "" {
		return usagef("--format tensorboard needs --out DIR: the log folder for `tensorboard --logdir`")
	}
	runs, err := export.TensorBoardRuns(paths)
	if err != nil {
		return err
	}
	files, err := export.WriteTensorBoard(out, runs)
	if asJSON && err == nil {
		if err := json.NewEncoder(stdout).Encode(files); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	}
	for _, f := range files {
		fmt.Fprintln(stdout, sessions.SafeText(f))
	}
	return err
}
