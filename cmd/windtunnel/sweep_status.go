package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/lab/sweep"
	"windtunnel/sessions"
)

// oneSweepFolder accepts exactly one positional argument, the sweep's folder.
func oneSweepFolder(c *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("%s takes one sweep folder, got %d arguments", commandName(c), len(args))
	}
	return nil
}

// newSweepStatusCmd is `windtunnel sweep status DIR`.
func newSweepStatusCmd(stdout, stderr io.Writer) *cobra.Command {
	var asJSON bool
	var view settingsView
	c := &cobra.Command{
		Use:   "status DIR",
		Short: "Show each point of a sweep: its state (queued, running, done, stopped, failed or missing), step and newest bit errors",
		Long: "status reads a sweep's folder: each point's session (its step and state) and, for a Slurm sweep,\n" +
			"squeue's view of its job arrays. Points that are missing, stopped or failed are what running\n" +
			"the sweep again trains or submits. --settings shows the swept flags against the results instead,\n" +
			"a row per point sorted by --sort (the sweep's metric, best first, by default); --plot FILE draws\n" +
			"them as parallel coordinates (PNG, SVG or PDF by the file's extension).",
		Args: oneSweepFolder,
		RunE: func(cmd *cobra.Command, args []string) error {
			if view.wanted() {
				return sweepSettings(cmd.Context(), args[0], view, asJSON, stdout, stderr)
			}
			return sweepStatus(cmd.Context(), args[0], asJSON, stdout, stderr)
		},
	}
	jsonFlag(c.Flags(), &asJSON, "one JSON object: the points with their states")
	view.flags(c.Flags())
	return c
}

// newSweepCancelCmd is `windtunnel sweep cancel DIR`.
func newSweepCancelCmd(stdout, stderr io.Writer) *cobra.Command {
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "cancel DIR",
		Short: "Stop a sweep: cancel its Slurm job arrays or its local engine, keeping the points done and every checkpoint",
		Long: "cancel stops what trains a sweep's folder and starts nothing more: its job arrays still in Slurm's\n" +
			"queue are cancelled (scancel: queued tasks dropped, running ones stop cleanly at a checkpoint), and a\n" +
			"local sweep's engine and runs on this machine get SIGTERM, which stops each running point after its\n" +
			"final evaluation and checkpoint. Points done stay done; running the sweep again resumes the rest.",
		Args: oneSweepFolder,
		RunE: func(cmd *cobra.Command, args []string) error {
			if timeout <= 0 {
				return usagef("sweep cancel: --timeout %s: want > 0", timeout)
			}
			m, err := sweep.Read(args[0])
			if err != nil {
				return usageError{Err: err}
			}
			var cl sweep.Canceller
			cl.Wait = timeout
			cl.Scancel, _ = exec.LookPath("scancel")
			cl.Squeue, _ = exec.LookPath("squeue")
			return m.Cancel(cmd.Context(), cl, stdout)
		},
	}
	c.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "how long to wait for the local runs to stop")
	return c
}

func sweepStatus(ctx context.Context, dir string, asJSON bool, stdout, stderr io.Writer) error {
	m, err := sweep.Read(dir)
	if err != nil {
		return usageError{Err: err}
	}
	rep := m.ReadStatus(ctx, func(err error) {
		fmt.Fprintf(stderr, "windtunnel sweep: %v: states from the sessions alone\n", err)
	})
	if asJSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	_, err = io.WriteString(stdout, sessions.SafeLines(m.StatusText(rep.Points)))
	return err
}
