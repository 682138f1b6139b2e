package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"windtunnel/lab/launch"
	"windtunnel/lab/runconfig"

	"github.com/spf13/cobra"

	"windtunnel/lab"
	"windtunnel/sessions"
)

// benchRow is one configuration's side-by-side timing.
type benchRow struct {
	Preset       string     `json:"preset"`
	Config       string     `json:"config"`
	Params       int        `json:"params"`
	Steps        int        `json:"steps"`
	OursMs       float64    `json:"windtunnel_median_ms"`
	OursSpread   [2]float64 `json:"windtunnel_min_max_ms"`
	TorchMs      float64    `json:"torch_median_ms,omitempty"`
	TorchThreads int        `json:"torch_threads,omitempty"`
	TorchBoth    []float64  `json:"torch_median_ms_by_threads,omitempty"`
	Ratio        float64    `json:"ratio,omitempty"`
	BLAS         string     `json:"blas"`
	// BLASKind is the --blas value the row ran with (auto, go, openblas, gonum).
	BLASKind string `json:"blas_kind"`
	TorchErr string `json:"torch_error,omitempty"`
	// Device is where windtunnel's step ran (cpu, cuda, cuda-gemm, host), TorchDevice PyTorch's.
	Device      string `json:"device"`
	DeviceName  string `json:"device_name,omitempty"`
	TorchDevice string `json:"torch_device,omitempty"`
	// Projected50kMin is 50,000 steps at the median step time, in minutes.
	Projected50kMin float64 `json:"projected_50k_steps_min"`
	// Reps is the number of (windtunnel, PyTorch) pairs run; the row's times and ratio are
	// their medians, Ratios every pair's ratio.
	Reps   int       `json:"repetitions"`
	Ratios []float64 `json:"ratios,omitempty"`
}

// medianRow folds repetitions of one configuration into one row: median times and ratio,
// the ratios of every pair, the widest min..max step time.
func medianRow(reps []benchRow) benchRow {
	row := reps[len(reps)/2]
	med := func(f func(benchRow) float64) float64 {
		xs := make([]float64, len(reps))
		for i, r := range reps {
			xs[i] = f(r)
		}
		sort.Float64s(xs)
		if n := len(xs); n%2 == 0 {
			return (xs[n/2-1] + xs[n/2]) / 2
		}
		return xs[len(xs)/2]
	}
	row.Reps = len(reps)
	row.OursMs = med(func(r benchRow) float64 { return r.OursMs })
	row.TorchMs = med(func(r benchRow) float64 { return r.TorchMs })
	row.Projected50kMin = row.OursMs * 50000 / 60000
	row.Ratios = nil
	for _, r := range reps {
		row.OursSpread[0] = math.Min(row.OursSpread[0], r.OursSpread[0])
		row.OursSpread[1] = math.Max(row.OursSpread[1], r.OursSpread[1])
		if r.Ratio > 0 {
			row.Ratios = append(row.Ratios, r.Ratio)
		}
	}
	if len(row.Ratios) == len(reps) {
		row.Ratio = med(func(r benchRow) float64 { return r.Ratio })
	}
	return row
}

func newBenchCmd(stdout, stderr io.Writer) *cobra.Command {
	var presets, devices []string
	var steps, paperSteps, repeat int
	var script, python string
	var blases []string
	var asJSON, accuracy, dashboard bool
	dash := dashOptions{Windows: 16, Window: 3 * time.Second, Settle: 500 * time.Millisecond, Key: 500 * time.Millisecond}
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
				dash.BLAS = blases[0]
				r, err := benchDashboard(cmd.Context(), dash, stdout, stderr)
				if err != nil {
					return err
				}
				return printDashboard(stdout, r, asJSON)
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
			ref, err := findTorchRef(cmd.Context(), script, python, func(s string) { fmt.Fprint(stderr, s) })
			if err != nil {
				return err
			}
			var rows []benchRow
			var vs []blasRatio
			for _, p := range presets {
				n := steps
				if p == runconfig.PresetPaper {
					n = paperSteps
				}
				for _, dev := range devices {
					// Every repetition runs each backend in turn, so that the backends'
					// runs alternate and each repetition gives one ratio between them.
					reps := make([][]benchRow, len(blases))
					for i := 0; i < repeat; i++ {
						for j, blas := range blases {
							row, err := benchPreset(cmd.Context(), p, n, blas, dev, ref, stderr)
							if err != nil {
								return err
							}
							row.BLASKind = blas
							reps[j] = append(reps[j], row)
						}
					}
					for j := range blases {
						rows = append(rows, medianRow(reps[j]))
						if j > 0 {
							vs = append(vs, newBLASRatio(reps[j], reps[0]))
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
				printBench(stdout, rows)
				printBLASRatios(stdout, vs)
			}
			if accuracy {
				return benchAccuracy(cmd.Context(), blases[0], ref, stdout, stderr)
			}
			return nil
		},
	}
	c.Flags().StringSliceVar(&presets, "presets", []string{runconfig.PresetQuick, runconfig.PresetPaper}, "configurations to time: quick, paper")
	c.Flags().StringSliceVar(&devices, "device", []string{"cpu"}, "where windtunnel's step runs, one row each: cpu, cuda (whole step on the GPU), cuda-gemm (products only), host; PyTorch runs on cuda for the GPU ones")
	c.Flags().IntVar(&repeat, "repeat", 1, "repetitions of each (windtunnel, PyTorch) pair, alternating; the row gives the median ratio and its spread")
	c.Flags().IntVar(&steps, "steps", 40, "timed steps per run for the quick configuration")
	c.Flags().IntVar(&paperSteps, "paper-steps", 12, "timed steps per run for the paper configuration")
	c.Flags().StringVar(&script, "torch-script", "", "PyTorch reference script (default: $TORCH_REFERENCE, else the project's "+torchScriptName+
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

func benchPreset(ctx context.Context, preset string, steps int, blas, device string, ref torchRef, stderr io.Writer) (benchRow, error) {
	cfg, err := runconfig.Preset(preset, "bijection")
	if err != nil {
		return benchRow{}, err
	}
	cfg.Steps, cfg.EvalEvery, cfg.ProbeSize, cfg.BLAS, cfg.Device = steps+3, steps+3, 1, blas, device
	cfg.Warmup = 200
	tr, err := lab.New(cfg)
	if err != nil {
		return benchRow{}, err
	}
	defer tr.Close()
	tc := cfg.Transformer
	row := benchRow{Preset: preset, Steps: steps, Params: tr.Model().NumParams(), BLAS: tr.BLAS(), Device: device,
		Config: fmt.Sprintf("V=20 d=%d L=%d H=%d batch=%d", tc.Width, tc.Layers, tc.Heads, cfg.Batch)}
	if d := tr.Device(); d.Kind != "cpu" {
		row.DeviceName = strings.TrimSpace(d.Name + " " + d.Driver)
	}
	fmt.Fprintf(stderr, "bench: %s: windtunnel on %s, %d steps ...\n", preset, device, steps)
	res, err := tr.Run(ctx)
	if err != nil {
		return row, err
	}
	row.OursMs = res.MedianStepMs()
	ms := append([]float64(nil), res.StepMs[3:]...)
	sort.Float64s(ms)
	row.OursSpread = [2]float64{ms[0], ms[len(ms)-1]}
	row.Projected50kMin = row.OursMs * 50000 / 60000
	if ref.Why != "" {
		row.TorchErr = ref.Why
		return row, nil
	}
	torchDev, threadsList := "cpu", []int{1, 2}
	if device != "cpu" && device != "host" {
		torchDev, threadsList = "cuda", []int{1}
	}
	row.TorchDevice = torchDev
	for _, threads := range threadsList {
		fmt.Fprintf(stderr, "bench: %s: PyTorch on %s, %d thread(s) ...\n", preset, torchDev, threads)
		out, err := runTorch(ctx, ref.Python, ref.Script, torchDev, tc.Width, tc.Layers, tc.Heads, cfg.Batch, steps+3, threads, 0)
		if err != nil {
			row.TorchErr = err.Error()
			return row, nil
		}
		var v struct {
			Median float64 `json:"median_ms_per_step"`
		}
		if err := json.Unmarshal(out[len(out)-1], &v); err != nil {
			row.TorchErr = fmt.Sprintf("torch output: %v", err)
			return row, nil
		}
		row.TorchBoth = append(row.TorchBoth, v.Median)
		if row.TorchMs == 0 || v.Median < row.TorchMs {
			row.TorchMs, row.TorchThreads = v.Median, threads
		}
	}
	row.Ratio = row.OursMs / row.TorchMs
	return row, nil
}

func printBench(w io.Writer, rows []benchRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "preset\tconfig\tparams\tdevice\tblas\tsteps\twindtunnel ms (min..max)\tPyTorch ms\tratio\t50k steps")
	for _, r := range rows {
		torch := r.TorchErr
		if torch == "" {
			torch = fmt.Sprintf("%.1f on %s (%s)", r.TorchMs, r.TorchDevice, joinF(r.TorchBoth))
		}
		ratio := "-"
		if r.Ratio > 0 {
			ratio = fmt.Sprintf("%.2f", r.Ratio)
		}
		if len(r.Ratios) > 1 {
			lo, hi := slices.Min(r.Ratios), slices.Max(r.Ratios)
			ratio += fmt.Sprintf(" (%.2f..%.2f, %d pairs)", lo, hi, len(r.Ratios))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%.1f (%.1f..%.1f)\t%s\t%s\t%.0f min\n", r.Preset, r.Config, r.Params, r.Device, r.BLASKind, r.Steps,
			r.OursMs, r.OursSpread[0], r.OursSpread[1], torch, ratio, r.Projected50kMin)
	}
	tw.Flush()
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.BLAS] {
			seen[r.BLAS] = true
			fmt.Fprintf(w, "windtunnel BLAS (%s): %s\n", r.BLASKind, r.BLAS)
		}
	}
	if len(rows) > 0 {
		fmt.Fprintln(w, "ratio = windtunnel / PyTorch (on the CPU at its faster thread count)")
	}
	for _, r := range rows {
		if r.DeviceName != "" {
			fmt.Fprintf(w, "%s: %s\n", r.Device, r.DeviceName)
		}
	}
}

func joinF(xs []float64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprintf("%.1f", x))
	}
	return strings.Join(s, " / ")
}

// benchAccuracy measures wall time to 0.05 bits (a) for both implementations.
func benchAccuracy(ctx context.Context, blas string, ref torchRef, stdout, stderr io.Writer) error {
	const target = 0.05
	cfg, _ := runconfig.Preset(runconfig.PresetQuick, "bijection")
	cfg.Steps, cfg.EvalEvery, cfg.BLAS = 6000, 250, blas
	tr, err := lab.New(cfg)
	if err != nil {
		return err
	}
	ctx2, cancel := context.WithCancel(ctx)
	defer cancel()
	reached := -1.0
	reachedStep := 0
	tr.Attach(launch.RecordFunc(func(r sessions.Record) {
		if r.Eval != nil && r.Eval.BitErrorPosition <= target && reached < 0 {
			reached, reachedStep = r.WallS, r.Step
			cancel()
		}
	}))
	fmt.Fprintf(stderr, "bench: time to %.2f bits: windtunnel ...\n", target)
	if _, err := tr.Run(ctx2); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "windtunnel: ")
	if reached < 0 {
		fmt.Fprintf(stdout, "did not reach %.2f bits in %d steps\n", target, cfg.Steps)
	} else {
		fmt.Fprintf(stdout, "%.2f bits (a) reached at step %d after %.1f s\n", target, reachedStep, reached)
	}
	if ref.Why != "" {
		fmt.Fprintf(stdout, "PyTorch: %s\n", ref.Why)
		return nil
	}
	fmt.Fprintf(stderr, "bench: time to %.2f bits: PyTorch (1 thread) ...\n", target)
	tc := cfg.Transformer
	tctx, tcancel := context.WithCancel(ctx)
	defer tcancel()
	cmd := exec.CommandContext(tctx, ref.Python, ref.Script, "--d", strconv.Itoa(tc.Width), "--layers", strconv.Itoa(tc.Layers),
		"--heads", strconv.Itoa(tc.Heads), "--batch", strconv.Itoa(cfg.Batch), "--steps", strconv.Itoa(cfg.Steps),
		"--threads", "1", "--eval-every", strconv.Itoa(cfg.EvalEvery), "--lr", "1e-3", "--warmup", "100", "--wd", "0.01")
	cmd.Env = append(os.Environ(), "OPENBLAS_NUM_THREADS=1", "PYTHONUNBUFFERED=1")
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stdout, "PyTorch: %v\n", err)
		return nil
	}
	defer cmd.Wait()
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		var v struct {
			Step  int     `json:"step"`
			Wall  float64 `json:"wall_s"`
			Error float64 `json:"bit_error_position"`
		}
		if json.Unmarshal(sc.Bytes(), &v) == nil && v.Step > 0 && v.Error <= target {
			fmt.Fprintf(stdout, "PyTorch:    %.2f bits (a) reached at step %d after %.1f s\n", target, v.Step, v.Wall)
			tcancel()
			return nil
		}
	}
	fmt.Fprintf(stdout, "PyTorch: did not reach %.2f bits in %d steps\n", target, cfg.Steps)
	return nil
}
