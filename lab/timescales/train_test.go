package timescales

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"windtunnel/backends/gemm"
)

// small is the experiment at a size that runs in a fraction of a second: 2 seeds, 300
// symbols, 200 steps at 0.05 (W_V at 0.5 in the EM-like arm).
func small(workers int) Config {
	c := DefaultConfig()
	c.Seeds, c.Length, c.Steps, c.LR, c.Workers = []uint64{1, 2}, 300, 200, 0.05, workers
	return c
}

// TestRunSmall: the whole experiment at a small size. Both arms of a seed start from the
// same data and weights (equal first losses, the chain's ln 8 ≈ 2.08 at the 0.1 init scale),
// both lower their loss, the EM-like arm ends lower than the baseline on every seed, the
// summary follows the curves (target, steps, speed-up), and one or two workers give the
// same result bit for bit.
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("trains both arms of two seeds for 200 steps")
	}
	r, err := Run(context.Background(), small(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.PerSeed) != 2 || r.Steps != 200 || r.Kind == "" || r.Note == "" {
		t.Fatalf("result %d seeds, %d steps, kind %q", len(r.PerSeed), r.Steps, r.Kind)
	}
	finals := 0.0
	for _, s := range r.PerSeed {
		b, e := s.Baseline, s.EM
		if len(b.Losses) != 200 || len(e.Losses) != 200 {
			t.Fatalf("seed %d: %d and %d losses", s.Seed, len(b.Losses), len(e.Losses))
		}
		if b.Losses[0] != e.Losses[0] || math.Abs(b.Losses[0]-math.Log(Symbols)) > 0.1 {
			t.Errorf("seed %d: first losses %v and %v, want equal and ≈ ln 8", s.Seed, b.Losses[0], e.Losses[0])
		}
		if !(b.Final < b.Losses[0] && e.Final < e.Losses[0]) {
			t.Errorf("seed %d: losses did not fall (%v → %v, %v → %v)", s.Seed, b.Losses[0], b.Final, e.Losses[0], e.Final)
		}
		if !(e.Final < b.Final) {
			t.Errorf("seed %d: EM-like final %v not below the baseline's %v", s.Seed, e.Final, b.Final)
		}
		finals += b.Final
		t.Logf("seed %d: baseline %.4f → %.4f (%d steps), EM-like → %.4f (%d steps)", s.Seed, b.Losses[0], b.Final, b.StepsToTarget, e.Final, e.StepsToTarget)
	}
	if math.Abs(r.Target-finals/2) > 1e-15 {
		t.Errorf("target %v, want the mean baseline final %v", r.Target, finals/2)
	}
	if r.EMSteps.Mean >= float64(r.Steps) || math.Abs(r.AuthorsSpeedup-200/r.EMSteps.Mean) > 1e-12 {
		t.Errorf("EM-like steps %v, authors' speed-up %v", r.EMSteps, r.AuthorsSpeedup)
	}
	if math.Abs(r.HMin-ConditionalEntropy(Transition(Symbols, SelfProb), Symbols)) > 0 {
		t.Errorf("H_min %v", r.HMin)
	}
	r2, err := Run(context.Background(), small(2))
	if err != nil {
		t.Fatal(err)
	}
	r.WallS, r2.WallS = 0, 0
	if !reflect.DeepEqual(r, r2) {
		t.Error("one and two workers give different results")
	}
}

// TestRunRejects: settings out of range are errors before any training; a rate at which
// the loss overflows is an error naming the arm, not a result with NaNs; a cancelled
// context stops the run.
func TestRunRejects(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"no seeds":   func(c *Config) { c.Seeds = nil },
		"steps":      func(c *Config) { c.Steps = 0 },
		"lr":         func(c *Config) { c.LR = math.NaN() },
		"value lr":   func(c *Config) { c.ValueLR = -1 },
		"length":     func(c *Config) { c.Length = 1 },
		"no backend": func(c *Config) { c.Backend = nil },
	} {
		c := small(1)
		mod(&c)
		if _, err := Run(context.Background(), c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	c := small(1)
	c.LR, c.ValueLR, c.Steps = 100, 1000, 50
	if _, err := Run(context.Background(), c); err == nil || !strings.Contains(err.Error(), "arm") {
		t.Errorf("diverging rates: %v, want an error naming the arm", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, small(1)); err == nil {
		t.Error("cancelled context: no error")
	}
	bad := small(1)
	bad.Backend = func() (gemm.Backend, error) { return gemm.Open("nonesuch") }
	if _, err := Run(context.Background(), bad); err == nil {
		t.Error("a backend that fails to open: no error")
	}
}
