package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
	"windtunnel/lab/bench"
	"windtunnel/lab/runconfig"

	"github.com/spf13/cobra"
)

func newBenchCmd(stdout, stderr io.Writer) *cobra.Command {
	var presets, devices []string
	var steps, paperSteps, repeat int
	var script, python string
	var blases []string
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
				if dash.Windows < 2 || dash.Windows%2 != 0 {
					return usagef("--windows must be an even number ≥ 2, got %d", dash.Windows)
				}
				if dash.Window < time.Second || dash.Settle < 0 || dash.Settle >= dash.Window || dash.Key < 0 {
					return usagef("--window must be at least 1s, --settle in [0, --window), --key ≥ 0")
				}
				cfg, err := pointConfig([]string{"--preset", runconfig.PresetQuick, "--steps", "1000000", "--blas", blases[0]})
				if err != nil {
					return err
				}
				dash.Terminal = onTerminal(stdout)
				r, err := bench.Dashboard(cmd.Context(), cfg, dash, version, stderr)
				if err != nil {
					return err
				}
				return r.Print(stdout, asJSON)
			}
			if steps < 5 || paperSteps < 5 {
				return usagef("--steps and --paper-steps must be at least 5")
			}
			if repeat < 1 || repeat > 100 {
				return usagef("--repeat must be 1..100, got %d", repeat)
			}
			for _, p := range presets {
				if p != runconfig.PresetQuick && p != runconfig.PresetPaper {
					return usagef("--presets %q: want quick and/or paper", p)
				}
			}
			if _, err := os.Stat(script); script != "" && err != nil {
				return usagef("--torch-script %s: %v", script, err)
			}
			ref, err := bench.FindTorch(cmd.Context(), script, python, func(s string) { fmt.Fprint(stderr, s) })
			if err != nil {
				return err
			}
			var rows []bench.Row
			var vs []bench.BLASRatio
			for _, p := range presets {
				n := steps
				if p == runconfig.PresetPaper {
					n = paperSteps
				}
				for _, dev := range devices {
					// Every repetition runs each backend in turn, so that the backends'
					// runs alternate and each repetition gives one ratio between them.
					reps := make([][]bench.Row, len(blases))
					for i := 0; i < repeat; i++ {
						for j, blas := range blases {
							// The preset timed for n steps (and 3 of warm-up): one evaluation, on a
							// probe set of one sequence, at the end; no geometry, no checkpoint.
							cfg, err := pointConfig([]string{"--preset", p, "--steps", strconv.Itoa(n + 3), "--eval-every", strconv.Itoa(n + 3),
								"--probe", "1", "--probe-every", "0", "--checkpoint-every", "0", "--warmup", "200", "--blas", blas, "--device", dev})
							if err != nil {
								return err
							}
							row, err := bench.Step(cmd.Context(), p, cfg, n, ref, stderr)
							if err != nil {
								return err
							}
							row.BLASKind = blas
							reps[j] = append(reps[j], row)
						}
					}
					for j := range blases {
						rows = append(rows, bench.MedianRow(reps[j]))
						if j > 0 {
							vs = append(vs, bench.NewBLASRatio(reps[j], reps[0]))
						}
					}
				}
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
				cfg, err := pointConfig([]string{"--preset", runconfig.PresetQuick, "--steps", "6000", "--eval-every", "250", "--blas", blases[0]})
				if err != nil {
					return err
				}
				return bench.Accuracy(cmd.Context(), cfg, ref, stdout, stderr)
			}
			return nil
		},
	}
	c.Flags().StringSliceVar(&presets, "presets", []string{runconfig.PresetQuick, runconfig.PresetPaper}, "configurations to time: quick, paper")
	c.Flags().StringSliceVar(&devices, "device", []string{"cpu"}, "where windtunnel's step runs, one row each: cpu, cuda (whole step on the GPU), cuda-gemm (products only), host; PyTorch runs on cuda for the GPU ones")
	c.Flags().IntVar(&repeat, "repeat", 1, "repetitions of each (windtunnel, PyTorch) pair, alternating; the row gives the median ratio and its spread")
	c.Flags().IntVar(&steps, "steps", 40, "timed steps per run for the quick configuration")
	c.Flags().IntVar(&paperSteps, "paper-steps", 12, "timed steps per run for the paper configuration")
	c.Flags().StringVar(&script, "torch-script", "", "PyTorch reference script (default: $TORCH_REFERENCE, else the project's "+bench.TorchScriptName+
		" next to the binary or in the repository's scripts/)")
	c.Flags().StringVar(&python, "python", "", "Python with PyTorch (default: the first of $PYTHON, python3 on PATH, /usr/bin/python3 that imports torch)")
	c.Flags().StringSliceVar(&blases, "blas", []string{"auto"}, "matrix-product backends, one row each, run in turn in every repetition (the first for --accuracy and --dashboard): "+
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
