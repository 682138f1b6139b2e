package derived

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"windtunnel/backends/untrusted"
	"windtunnel/sessions"
)

// Paper II's two-timescale experiment (`windtunnel timescales`, computed by lab/timescales):
// its result as the command writes it with --json and as the report reads it back, and the
// metric both state.

// TimescalesKind names the result in its JSON ("kind"), so that the report recognises the file.
const TimescalesKind = "windtunnel.timescales"

// TimescalesFile is the name under which the report looks for the result in a folder of
// sessions (`windtunnel timescales --json > DIR/timescales.json`).
const TimescalesFile = "timescales.json"

// Timescales is one run of Paper II's experiment: both arms on every seed, the target and
// the steps each arm needs to reach it.
type Timescales struct {
	Kind string `json:"kind"`
	// Note says what differs from the authors' run (the random draws).
	Note string `json:"note"`
	// Seeds, Steps, Length: the seeds, the updates per arm, the symbols drawn per sequence
	// (Length−1 predictions).
	Seeds  []uint64 `json:"seeds"`
	Steps  int      `json:"steps"`
	Length int      `json:"length"`
	// LR is the baseline's rate on every matrix; ValueLR multiplies it on W_V in the EM-like
	// arm (the authors': 0.01 and 10).
	LR      float64 `json:"lr"`
	ValueLR float64 `json:"value_lr"`
	// HMin is the chain's conditional entropy H(Y_t | Y_{t−1}) in nats (the loss floor).
	HMin float64 `json:"h_min"`
	// Target is the mean over seeds of the baseline's final loss.
	Target float64 `json:"target"`
	// PerSeed holds each seed's two arms.
	PerSeed []TimescalesSeed `json:"per_seed"`
	// BaselineSteps and EMSteps are the arms' steps to Target over seeds; FinalBaseline and
	// FinalEM their final losses.
	BaselineSteps Stat `json:"baseline_steps"`
	EMSteps       Stat `json:"em_steps"`
	FinalBaseline Stat `json:"final_loss_baseline"`
	FinalEM       Stat `json:"final_loss_em"`
	// Speedup is the mean baseline steps over the mean EM-like steps; AuthorsSpeedup is Steps
	// over the mean EM-like steps, as the authors' script computes it (it takes the
	// baseline's steps to be all of them).
	Speedup        float64 `json:"speedup"`
	AuthorsSpeedup float64 `json:"authors_speedup"`
	// WallS is the wall time of the whole experiment.
	WallS float64 `json:"wall_s"`
}

// TimescalesSeed is one seed: the same data and initial weights trained by both arms.
type TimescalesSeed struct {
	Seed     uint64        `json:"seed"`
	Baseline TimescalesArm `json:"baseline"`
	EM       TimescalesArm `json:"em"`
}

// TimescalesArm is one arm on one seed.
type TimescalesArm struct {
	// Losses[i] is the mean cross-entropy before update i (the authors' record); Final the
	// loss after the last update.
	Losses []float64 `json:"losses"`
	Final  float64   `json:"final_loss"`
	// StepsToTarget is StepsToTarget(Losses, the result's Target).
	StepsToTarget int `json:"steps_to_target"`
}

// StepsToTarget is the first i with losses[i] < target — the number of updates after which
// the loss, recorded before each update, is first below the target — and len(losses) when
// none is (the authors' rule).
func StepsToTarget(losses []float64, target float64) int {
	for i, l := range losses {
		if l < target {
			return i
		}
	}
	return len(losses)
}

// Summarise fills the target (the mean of the baselines' final losses), each arm's steps to
// it, the statistics over seeds and the speed-ups from the per-seed losses.
func (t *Timescales) Summarise() {
	var finB, finE, stB, stE []float64
	for _, s := range t.PerSeed {
		finB, finE = append(finB, s.Baseline.Final), append(finE, s.EM.Final)
	}
	t.Target, _ = MeanSD(finB)
	for i := range t.PerSeed {
		s := &t.PerSeed[i]
		s.Baseline.StepsToTarget = StepsToTarget(s.Baseline.Losses, t.Target)
		s.EM.StepsToTarget = StepsToTarget(s.EM.Losses, t.Target)
		stB, stE = append(stB, float64(s.Baseline.StepsToTarget)), append(stE, float64(s.EM.StepsToTarget))
	}
	t.BaselineSteps, t.EMSteps = StatOf(stB), StatOf(stE)
	t.FinalBaseline, t.FinalEM = StatOf(finB), StatOf(finE)
	t.Speedup = t.BaselineSteps.Mean / t.EMSteps.Mean
	t.AuthorsSpeedup = float64(t.Steps) / t.EMSteps.Mean
}

// The bounds DecodeTimescales holds a result file to.
const (
	maxTimescalesBytes = 64 << 20
	maxTimescalesSeeds = 1000
	maxTimescalesSteps = 1_000_000
)

// DecodeTimescales reads a result written by `timescales --json` (at most 64 MiB) and checks
// that it is one: its kind, at least one seed, every arm's loss curve of Steps finite values.
// The statistics are recomputed from the curves (Summarise), so a file cannot state a
// speed-up its curves do not give.
func DecodeTimescales(r io.Reader) (Timescales, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxTimescalesBytes+1))
	if err != nil {
		return Timescales{}, fmt.Errorf("derived: timescales: %w", err)
	}
	if len(b) > maxTimescalesBytes {
		return Timescales{}, fmt.Errorf("derived: timescales: file over %d MiB", maxTimescalesBytes>>20)
	}
	var t Timescales
	if err := untrusted.Unmarshal(b, &t); err != nil {
		return Timescales{}, fmt.Errorf("derived: timescales: %w", err)
	}
	if err := t.check(); err != nil {
		return Timescales{}, fmt.Errorf("derived: timescales: %w", err)
	}
	t.Summarise()
	return t, nil
}

// check reports the first way t is not a result Summarise can work on.
func (t Timescales) check() error {
	switch {
	case t.Kind != TimescalesKind:
		return fmt.Errorf("kind %q, want %q", t.Kind, TimescalesKind)
	case len(t.PerSeed) == 0 || len(t.PerSeed) > maxTimescalesSeeds:
		return fmt.Errorf("%d seeds, want 1..%d", len(t.PerSeed), maxTimescalesSeeds)
	case t.Steps < 1 || t.Steps > maxTimescalesSteps:
		return fmt.Errorf("steps %d, want 1..%d", t.Steps, maxTimescalesSteps)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for _, s := range t.PerSeed {
		for _, a := range []TimescalesArm{s.Baseline, s.EM} {
			if len(a.Losses) != t.Steps {
				return fmt.Errorf("seed %d: %d losses, want steps %d", s.Seed, len(a.Losses), t.Steps)
			}
			if !finite(a.Final) {
				return fmt.Errorf("seed %d: final loss %v", s.Seed, a.Final)
			}
			for _, l := range a.Losses {
				if !finite(l) {
					return errors.New("a loss that is not finite")
				}
			}
		}
	}
	return nil
}

// Text is the result as a table per seed and the summary under it, as `windtunnel
// timescales` prints it.
func (r Timescales) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Paper II, two timescales: %s, %d symbols each, %d full-batch steps; baseline %g on every matrix, EM-like %g on W_V\n",
		sessions.Plural(len(r.Seeds), "seed"), r.Length, r.Steps, r.LR, r.LR*r.ValueLR)
	fmt.Fprintf(&b, "target (mean final baseline loss) %.4f nats; H_min %.4f nats\n\n", r.Target, r.HMin)
	fmt.Fprintf(&b, "%-6s  %14s  %14s  %15s  %15s\n", "seed", "baseline steps", "EM-like steps", "baseline final", "EM-like final")
	for _, s := range r.PerSeed {
		fmt.Fprintf(&b, "%-6d  %14d  %14d  %15.4f  %15.4f\n", s.Seed, s.Baseline.StepsToTarget, s.EM.StepsToTarget, s.Baseline.Final, s.EM.Final)
	}
	fmt.Fprintf(&b, "\nsteps to %.4f: baseline %s, EM-like %s (mean ± sample sd)\n", r.Target, r.BaselineSteps.String(0), r.EMSteps.String(0))
	fmt.Fprintf(&b, "speed-up %.2f× (the authors' way, %d / EM-like steps: %.2f×; the paper: 2.3×, 430 vs 1,000)\n", r.Speedup, r.Steps, r.AuthorsSpeedup)
	fmt.Fprintf(&b, "final loss: baseline %s, EM-like %s; H_min %.4f\n", r.FinalBaseline.String(4), r.FinalEM.String(4), r.HMin)
	fmt.Fprintf(&b, "note: %s\nwall time %.1f s\n", r.Note, r.WallS)
	return b.String()
}
