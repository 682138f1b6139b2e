package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"windtunnel/backends/bytesize"
	"windtunnel/lab/sweep"
	"windtunnel/sessions"
)

func newSlimCmd(stdout, stderr io.Writer) *cobra.Command {
	var out string
	var o sessions.SlimOptions
	c := &cobra.Command{
		Use:   "slim --out DIR SESSION|FOLDER...",
		Short: "Copy sessions without their checkpoints and most step records, small enough to share or commit",
		Long: "slim writes into --out a small copy of each session named (a file, or a folder's session files):\n" +
			"its configuration, labels, events and metrics, every evaluation, the newest geometry snapshot\n" +
			"(--all-geometry: every one), and the training curves thinned to about --rows records. A run that\n" +
			"ended done keeps no checkpoint: its copy replays, plots, reports and counts as finished in\n" +
			"compare, sweep and primitives, but cannot be probed or extended. A run that did not end done keeps\n" +
			"its newest checkpoint whole, so `run --resume` (or the sweep it belongs to) continues the copy\n" +
			"(--no-checkpoint: none, the smallest copy).\n" +
			"A folder holding a sweep (sweep.json) has its manifest copied too: `windtunnel primitives` or\n" +
			"`sweep` with --out DIR continues it, training only the points not finished. A session being\n" +
			"written is not copied (named on stderr, the others are, the exit status 1); the originals are\n" +
			"never changed, and no file in --out is replaced.",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s takes the sessions or folders to copy", commandName(c))
			}
			if out == "" {
				return usagef("%s: --out DIR is needed (a folder for the copies)", commandName(c))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSlim(args, out, o, stdout, stderr)
		},
	}
	c.Flags().StringVar(&out, "out", "", "the `DIR` the copies go into (made if missing)")
	c.Flags().IntVar(&o.Rows, "rows", 1000, "keep about `N` plain training records a session (evaluations, snapshots and state changes are all kept)")
	c.Flags().BoolVar(&o.AllGeometry, "all-geometry", false, "keep every geometry snapshot, not only the newest")
	c.Flags().BoolVar(&o.NoCheckpoint, "no-checkpoint", false, "keep no checkpoint, an unfinished run's neither (its copy cannot resume)")
	return c
}

// runSlim copies the sessions named by paths, and the manifest of a sweep folder among
// them, into out.
// A session that cannot be copied (one being written, one that is not a session) is named
// on stderr and the others are copied; the command then fails, saying how many were not.
func runSlim(paths []string, out string, o sessions.SlimOptions, stdout, stderr io.Writer) error {
	if o.Rows < 1 || o.Rows > 1_000_000 {
		return usagef("slim: --rows %d: want 1..1000000", o.Rows)
	}
	found, err := sessions.Find(paths, sessions.FindOptions{})
	if err != nil {
		return fmt.Errorf("slim: %w", err)
	}
	if err := sessions.MakeOutputDir(out, sessions.DirMode); err != nil {
		return fmt.Errorf("slim: %w", err)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := sweep.CopyManifest(p, out); err != nil {
			return fmt.Errorf("slim: %w", err)
		}
	}
	failed := 0
	for _, f := range found {
		dst := filepath.Join(out, filepath.Base(f.Path))
		res, err := sessions.Slim(f.Path, dst, o)
		if err != nil {
			fmt.Fprintf(stderr, "slim: not copied: %v\n", err)
			failed++
			continue
		}
		kept := "no checkpoint (done)"
		switch {
		case !res.Done && res.Checkpoint >= 0:
			kept = fmt.Sprintf("its checkpoint at step %d (resumable)", res.Checkpoint)
		case !res.Done && o.NoCheckpoint:
			kept = "no checkpoint (unfinished, --no-checkpoint)"
		case !res.Done:
			kept = "no checkpoint (unfinished, none written: a resume starts it again)"
		}
		fmt.Fprintf(stdout, "%s: %s → %s, %d of %d records, %s\n", sessions.SafeText(dst),
			bytesize.String(res.Bytes), bytesize.String(res.BytesKept), res.RecordsKept, res.Records, kept)
	}
	if failed > 0 {
		return fmt.Errorf("slim: %d of %d sessions not copied (above)", failed, len(found))
	}
	return nil
}
