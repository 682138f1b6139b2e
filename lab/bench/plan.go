package bench

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"windtunnel/sessions/runconfig"
)

// Plan is what `windtunnel bench` times: each of Presets (quick, paper) for Steps timed
// steps (PaperSteps for paper), on each of Devices, with each backend of BLAS, Repeat times.
type Plan struct {
	Presets, Devices, BLAS    []string
	Steps, PaperSteps, Repeat int
	// build makes a row's configuration from run's flags (nil: config); a test's is small.
	build func(args []string) (runconfig.Config, error)
}

// config is the configuration run builds from its flags args (runconfig.FromArgs; bench
// gives no --like).
func config(args []string) (runconfig.Config, error) {
	return runconfig.FromArgs(args, nil)
}

// Check refuses a plan bench does not time, naming the flag: fewer than 5 steps, Repeat
// outside 1..100, a preset other than quick and paper, a device or backend run refuses.
func (p Plan) Check() error {
	if p.Steps < 5 || p.PaperSteps < 5 {
		return fmt.Errorf("--steps and --paper-steps must be at least 5")
	}
	if p.Repeat < 1 || p.Repeat > 100 {
		return fmt.Errorf("--repeat must be 1..100, got %d", p.Repeat)
	}
	for _, s := range p.Presets {
		if s != runconfig.PresetQuick && s != runconfig.PresetPaper {
			return fmt.Errorf("--presets %q: want quick and/or paper", s)
		}
		for _, dev := range p.Devices {
			for _, blas := range p.BLAS {
				if _, err := config(StepArgs(s, dev, blas, p.Steps)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// StepArgs are run's flags for timing preset on device with blas: the preset for n steps
// and 3 of warm-up, one evaluation, on a probe set of one sequence, at the end; no
// geometry, no checkpoint.
func StepArgs(preset, device, blas string, n int) []string {
	return []string{"--preset", preset, "--steps", strconv.Itoa(n + 3), "--eval-every", strconv.Itoa(n + 3),
		"--probe", "1", "--probe-every", "0", "--checkpoint-every", "0", "--warmup", "200", "--blas", blas, "--device", device}
}

// Run times the plan with Step, each configuration built from run's flags (StepArgs,
// runconfig.FromArgs). Every repetition runs each backend in turn, so that the backends' runs
// alternate and each repetition gives one ratio between them. It returns a row per preset,
// device and backend (MedianRow of its repetitions) and each backend after the first
// against the first (NewBLASRatio).
func (p Plan) Run(ctx context.Context, ref Torch, stderr io.Writer) ([]Row, []BLASRatio, error) {
	build := p.build
	if build == nil {
		build = config
	}
	var rows []Row
	var vs []BLASRatio
	for _, preset := range p.Presets {
		n := p.Steps
		if preset == runconfig.PresetPaper {
			n = p.PaperSteps
		}
		for _, dev := range p.Devices {
			reps := make([][]Row, len(p.BLAS))
			for range p.Repeat {
				for j, blas := range p.BLAS {
					cfg, err := build(StepArgs(preset, dev, blas, n))
					if err != nil {
						return nil, nil, err
					}
					row, err := Step(ctx, preset, cfg, n, ref, stderr)
					if err != nil {
						return nil, nil, err
					}
					row.BLASKind = blas
					reps[j] = append(reps[j], row)
				}
			}
			for j := range p.BLAS {
				rows = append(rows, MedianRow(reps[j]))
				if j > 0 {
					vs = append(vs, NewBLASRatio(reps[j], reps[0]))
				}
			}
		}
	}
	return rows, vs, nil
}

// Check refuses dashboard options the benchmark cannot run, naming the flag: an odd or
// too small number of windows, a window under 1s, a settle time outside [0, window), a
// negative key interval.
func (o DashOptions) Check() error {
	if o.Windows < 2 || o.Windows%2 != 0 {
		return fmt.Errorf("--windows must be an even number ≥ 2, got %d", o.Windows)
	}
	if o.Window < time.Second || o.Settle < 0 || o.Settle >= o.Window || o.Key < 0 {
		return fmt.Errorf("--window must be at least 1s, --settle in [0, --window), --key ≥ 0")
	}
	return nil
}
