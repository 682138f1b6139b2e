package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"windtunnel/lab/launch"
	"windtunnel/sessions/runconfig"

	"windtunnel/lab"
	"windtunnel/sessions"
)

// Row is one configuration's side-by-side timing.
type Row struct {
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

// MedianRow folds repetitions of one configuration into one row: median times and ratio,
// the ratios of every pair, the widest min..max step time.
func MedianRow(reps []Row) Row {
	row := reps[len(reps)/2]
	med := func(f func(Row) float64) float64 {
		xs := make([]float64, len(reps))
		for i, r := range reps {
			xs[i] = f(r)
		}
		return median(xs)
	}
	row.Reps = len(reps)
	row.OursMs = med(func(r Row) float64 { return r.OursMs })
	row.TorchMs = med(func(r Row) float64 { return r.TorchMs })
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
		row.Ratio = med(func(r Row) float64 { return r.Ratio })
	}
	return row
}

// Step times windtunnel's training step on cfg (a bijection transformer of steps+3 steps:
// the first three are warm-up, left out), then the PyTorch reference ref on the same
// model, batch and AdamW step at 1 and 2 threads on the CPU (1 on a GPU), keeping its
// faster; preset names the row. A reference that cannot run is said in the row's TorchErr.
func Step(ctx context.Context, preset string, cfg runconfig.Config, steps int, ref Torch, stderr io.Writer) (Row, error) {
	device := cfg.Device
	tr, err := lab.New(cfg)
	if err != nil {
		return Row{}, err
	}
	defer tr.Close()
	tc := cfg.Transformer
	row := Row{Preset: preset, Steps: steps, Params: tr.Model().NumParams(), BLAS: tr.BLAS(), Device: device,
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
		out, err := RunTorch(ctx, ref.Python, ref.Script, TorchArgs(cfg, torchDev, steps+3, threads, false))
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

// PrintTable prints the rows as a table, then the BLAS each used and the devices' names.
func PrintTable(w io.Writer, rows []Row) {
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

// AccuracyConfig is what Accuracy trains: the quick bijection configuration, 6,000 steps,
// evaluated every 250, with the backend blas.
func AccuracyConfig(blas string) (runconfig.Config, error) {
	return config([]string{"--preset", runconfig.PresetQuick, "--steps", "6000", "--eval-every", "250", "--blas", blas})
}

// Accuracy measures the wall time both implementations take to reach 0.05 bits (a) with
// cfg (AccuracyConfig), windtunnel's and then the reference's (TorchArgs: the same
// configuration), and prints both.
func Accuracy(ctx context.Context, cfg runconfig.Config, ref Torch, stdout, stderr io.Writer) error {
	const target = 0.05
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
	tctx, tcancel := context.WithCancel(ctx)
	defer tcancel()
	cmd := torchCommand(tctx, ref.Python, ref.Script, TorchArgs(cfg, "cpu", cfg.Steps, 1, true))
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
