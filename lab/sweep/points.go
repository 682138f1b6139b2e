package sweep

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

// MaxSeeds bounds the seeds of a sweep's or a comparison's grid (--seeds 1..N): a grid of
// more points than MaxPoints is refused anyway.
const MaxSeeds = MaxPoints

// CheckSeeds refuses a --seeds outside 1..MaxSeeds.
func CheckSeeds(seeds int) error {
	switch {
	case seeds < 1:
		return fmt.Errorf("--seeds %d: empty grid (want 1..%d)", seeds, MaxSeeds)
	case seeds > MaxSeeds:
		return fmt.Errorf("--seeds %d out of range: want 1..%d", seeds, MaxSeeds)
	}
	return nil
}

// PointConfig is the configuration run builds from a point's flags (runconfig.FromArgs,
// --like read by derived.ReadLike): what the point trains.
func PointConfig(p Point) (runconfig.Config, error) {
	return runconfig.FromArgs(p.Args, derived.ReadLike)
}

// CheckedPoints expands the grid (Points) after refusing an axis that is not a
// configuration flag of run (with the closest one), and builds every point's
// configuration (CheckPoints).
func (g *Grid) CheckedPoints() ([]Point, error) {
	names := runconfig.FlagNames()
	for _, a := range g.Axes {
		if !slices.Contains(names, a.Flag) {
			hint := "see windtunnel run --help"
			if s := runconfig.Closest(a.Flag, names); s != "" {
				hint = "did you mean --" + s + "?"
			}
			return nil, fmt.Errorf("sweep: --set %s: `windtunnel run` has no flag --%s (%s)", a.Flag, a.Flag, hint)
		}
	}
	points, err := g.Points()
	if err != nil {
		return nil, err
	}
	return CheckPoints(points)
}

// CheckPoints builds every point's configuration (PointConfig: run's flags, the one path
// runconfig.Build) and sets the point's planned steps from it. A point run refuses, or two
// points that train the same run (the same configuration but for the BLAS and the worker
// count, which change only speed), are an error naming them.
func CheckPoints(points []Point) ([]Point, error) {
	seen := map[string]string{}
	for i, p := range points {
		cfg, err := PointConfig(p)
		if err != nil {
			return nil, fmt.Errorf("sweep: point %s: %v", p.Name, err)
		}
		points[i].Steps = cfg.Steps
		points[i].Work = StepWork(cfg)
		cfg.BLAS, cfg.Workers = "", 0
		key, err := json.Marshal(cfg)
		if err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		if other, dup := seen[string(key)]; dup {
			return nil, fmt.Errorf("sweep: points %s and %s train the same run", other, p.Name)
		}
		seen[string(key)] = p.Name
	}
	return points, nil
}

// CheckGPU refuses a --gres that asks Slurm for a GPU for every task when some points train
// on the CPU (their --device is not cuda or cuda-gemm): each would hold a GPU it never uses,
// without a word.
func CheckGPU(gres string, points []Point) error {
	if !strings.Contains(strings.ToLower(gres), "gpu") {
		return nil
	}
	var cpu []string
	for _, p := range points {
		cfg, err := PointConfig(p)
		if err != nil {
			return fmt.Errorf("sweep: point %s: %v", p.Name, err)
		}
		if cfg.Device != "cuda" && cfg.Device != "cuda-gemm" {
			cpu = append(cpu, p.Name)
		}
	}
	if len(cpu) == 0 {
		return nil
	}
	return fmt.Errorf("sweep: --gres %s asks Slurm for a GPU for every task, while %d of the %d points train on the CPU (the first: %s): add --set device=cuda, or drop --gres",
		gres, len(cpu), len(points), sessions.SafeText(cpu[0]))
}

// StepWork is a training step's cost in relative units: the model's parameters × the tokens
// a step trains on (batch × sequence length). A grid's steps differ in cost by more than an
// order of magnitude (primitives: a recall step of a 0.1M-parameter model on 21 tokens, an
// hmm step of a 0.2M one on 93), so the ETA counts this, not steps. 0 when the tunnel cannot
// be built (CheckPoints has refused such a point already).
func StepWork(cfg runconfig.Config) float64 {
	tn, err := tunnels.New(cfg.Task, cfg.Tunnel)
	if err != nil {
		return 0
	}
	return float64(models.SpecParams(cfg.Spec(), tn)) * float64(tn.SeqLen()) * float64(cfg.Batch)
}
