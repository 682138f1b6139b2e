package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
	"windtunnel/lab/bench"
	"windtunnel/sessions/runconfig"

	"github.com/spf13/cobra"
)

func newBenchCmd(stdout, stderr io.Writer) *cobra.Command {
	var plan bench.Plan
	var script, python string
	var asJSON, accuracy, dashboard bool
	dash := bench.DashOptions{Windows: 16, Window: 3 * time.Second, Settle: 500 * time.Millisecond, Key: 500 * time.Millisecond}
	c := &cobra.Command{
		Use:   "bench",
		Short: "Time the training step against the PyTorch reference, side by side",
		Long: "bench times windtunnel's training step (fresh batch, forward, backward, AdamW) on bijection V=20 for\n" +
			"the quick and paper presets, then runs the project's PyTorch reference (scripts/torch_reference.py:\n" +
			"the same model, batch and AdamW step) on the same configuration at 1 and 2 threads, keeping its\n" +
			"faster, and prints median ms per step and the ratio windtunnel/PyTorch (below 1: windtunnel is\n" +
			"faster). PyTorch comes from Debian's python3-torch (apt install python3-torch) or any Python that\n" +
			"imports torch. --accuracy also measures the time both take to reach 0.05 bits (a) with the quick\n" +
			"configuration.\n\n" +
			"--dashboard instead measures what the dashboard costs the trainer: one quick bijection run, the\n" +
			"dashboard switched on and off in alternating windows (off, on, on, off, …) in the same process,\n" +
			"a Tab typed every --key while it runs; it prints the trainer's step time in each window, the\n" +
			"ratios, the dashboard's screens per second and its key-to-screen time. On a terminal the\n" +
			"dashboard draws there, otherwise into a virtual 160×48 terminal.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dashboard {
				if err := dash.Check(); err != nil {
					return usageError{Err: err}
				}
				cfg, err := bench.DashboardConfig(plan.BLAS[0])
				if err != nil {
					return usageError{Err: err}
				}
				dash.Terminal = onTerminal(stdout)
				r, err := bench.Dashboard(cmd.Context(), cfg, dash, version, stderr)
				if err != nil {
					return err
				}
				return r.Print(stdout, asJSON)
			}
			if err := plan.Check(); err != nil {
				return usageError{Err: err}
			}
			if _, err := os.Stat(script); script != "" && err != nil {
				return usagef("--torch-script %s: %v", script, err)
			}
			ref, err := bench.FindTorch(cmd.Context(), script, python, func(s string) { fmt.Fprint(stderr, s) })
			if err != nil {
				return err
			}
			rows, vs, err := plan.Run(cmd.Context(), ref, stderr)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				for _, r := range rows {
					if err := enc.Encode(r); err != nil {
						return err
					}
				}
			} else {
				bench.PrintTable(stdout, rows)
				bench.PrintBLASRatios(stdout, vs)
			}
			if accuracy {
				cfg, err := bench.AccuracyConfig(plan.BLAS[0])
				if err != nil {
					return usageError{Err: err}
				}
				return bench.Accuracy(cmd.Context(), cfg, ref, stdout, stderr)
			}
			return nil
		},
	}
	c.Flags().StringSliceVar(&plan.Presets, "presets", []string{runconfig.PresetQuick, runconfig.PresetPaper}, "configurations to time: quick, paper")
	c.Flags().StringSliceVar(&plan.Devices, "device", []string{"cpu"}, "where windtunnel's step runs, one row each: cpu, cuda (whole step on the GPU), cuda-gemm (products only), host; PyTorch runs on cuda for the GPU ones")
	c.Flags().IntVar(&plan.Repeat, "repeat", 1, "repetitions of each (windtunnel, PyTorch) pair, alternating; the row gives the median ratio and its spread")
	c.Flags().IntVar(&plan.Steps, "steps", 40, "timed steps per run for the quick configuration")
	c.Flags().IntVar(&plan.PaperSteps, "paper-steps", 12, "timed steps per run for the paper configuration")
	c.Flags().StringVar(&script, "torch-script", "", "PyTorch reference script (default: $TORCH_REFERENCE, else the project's "+bench.TorchScriptName+
		" next to the binary or in the repository's scripts/)")
	c.Flags().StringVar(&python, "python", "", "Python with PyTorch (default: the first of $PYTHON, python3 on PATH, /usr/bin/python3 that imports torch)")
	c.Flags().StringSliceVar(&plan.BLAS, "blas", []string{"auto"}, "matrix-product backends, one row each, run in turn in every repetition (the first for --accuracy and --dashboard): "+
		"auto, go, openblas, gonum; with several, the table is followed by each one's step time over the first's, pair by pair")
	jsonFlag(c.Flags(), &asJSON, "one JSON object per configuration")
	c.Flags().BoolVar(&dashboard, "dashboard", false, "measure the dashboard's cost to the trainer instead (alternating windows in one run)")
	c.Flags().IntVar(&dash.Windows, "windows", dash.Windows, "--dashboard: number of windows, even (half with the dashboard)")
	c.Flags().DurationVar(&dash.Window, "window", dash.Window, "--dashboard: length of each window")
	c.Flags().DurationVar(&dash.Settle, "settle", dash.Settle, "--dashboard: time left out at the start of each window")
	c.Flags().DurationVar(&dash.Key, "key", dash.Key, "--dashboard: type a Tab this often while the dashboard runs (0: never)")
	c.Flags().BoolVar(&accuracy, "accuracy", false, "also measure wall time to 0.05 bits (a) on bijection V=20, quick configuration")
	return c
}
