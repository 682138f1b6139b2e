package sweep

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDistributions draws 40,000 values of each distribution and holds their moments to the
// closed forms: the mean and spread of uniform, normal and the logs of log-uniform and
// log-normal draws within 3% of the scale, every whole number of int_uniform about as often
// as the others, q_ draws multiples of q within the bounds, and categorical values by their
// probabilities.
func TestDistributions(t *testing.T) {
	const n = 40000
	src := newSource(3)
	stats := func(xs []float64) (mean, sd float64) {
		for _, x := range xs {
			mean += x
		}
		mean /= float64(len(xs))
		for _, x := range xs {
			sd += (x - mean) * (x - mean)
		}
		return mean, math.Sqrt(sd / float64(len(xs)))
	}
	for _, c := range []struct {
		d            Distribution
		log          bool // compare the logs of the draws
		mean, sd, lo float64
		hi           float64
	}{
		{Distribution{Kind: "uniform", Min: -2, Max: 6}, false, 2, 8 / math.Sqrt(12), -2, 6},
		{Distribution{Kind: "log_uniform_values", Min: 1e-4, Max: 1e-2}, true, math.Log(1e-3), math.Log(100) / math.Sqrt(12), 1e-4, 1e-2},
		{Distribution{Kind: "log_uniform", Min: -3, Max: 1}, true, -1, 4 / math.Sqrt(12), math.Exp(-3), math.Exp(1)},
		{Distribution{Kind: "normal", Mu: 5, Sigma: 2}, false, 5, 2, math.Inf(-1), math.Inf(1)},
		{Distribution{Kind: "log_normal", Mu: -1, Sigma: 0.5}, true, -1, 0.5, 0, math.Inf(1)},
	} {
		xs := make([]float64, n)
		for i := range xs {
			x := src.draw(c.d)
			if x < c.lo || x > c.hi {
				t.Fatalf("%s drew %g outside [%g, %g]", c.d, x, c.lo, c.hi)
			}
			if c.log {
				x = math.Log(x)
			}
			xs[i] = x
		}
		mean, sd := stats(xs)
		if math.Abs(mean-c.mean) > 0.03*c.sd || math.Abs(sd-c.sd) > 0.03*c.sd {
			t.Errorf("%s: mean %.4f sd %.4f, want %.4f and %.4f", c.d, mean, sd, c.mean, c.sd)
		}
	}
	counts := map[float64]int{}
	for range n {
		counts[src.draw(Distribution{Kind: "int_uniform", Min: 3, Max: 7})]++
	}
	for v := 3.0; v <= 7; v++ {
		if f := float64(counts[v]) / n; math.Abs(f-0.2) > 0.015 {
			t.Errorf("int_uniform(3, 7) drew %g %.3f of the time, want 0.2", v, f)
		}
	}
	if len(counts) != 5 {
		t.Errorf("int_uniform(3, 7) drew %v", counts)
	}
	for range 1000 {
		x := src.draw(Distribution{Kind: "q_uniform", Min: 0.5, Max: 2, Q: 0.25})
		if x < 0.5 || x > 2 || math.Mod(x, 0.25) != 0 {
			t.Fatalf("q_uniform(0.5, 2, q=0.25) drew %g", x)
		}
	}
	picks := make([]int, 3)
	for range n {
		picks[src.pick(3, []float64{0.5, 0.3, 0.2})]++
	}
	for i, p := range []float64{0.5, 0.3, 0.2} {
		if f := float64(picks[i]) / n; math.Abs(f-p) > 0.015 {
			t.Errorf("value %d drawn %.3f of the time, want %.1f", i, f, p)
		}
	}
}

// TestRandomSearch (issue 44 item 15): a sweep file with method random draws run_cap
// configurations, seeded (the same points every time; a larger run_cap draws the same first
// ones, so it extends the sweep), each value from its distribution, crossed with the seeds;
// Hydra's Optuna form draws the same way; too few different configurations is an error.
func TestRandomSearch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wandb := func(cap int) string {
		return write("w"+strconv.Itoa(cap)+".yaml", `method: random
run_cap: `+strconv.Itoa(cap)+`
random_seed: 7
metric: {name: bit_error, goal: minimize}
parameters:
  lr: {distribution: log_uniform_values, min: 1e-4, max: 1e-2}
  width: {values: [32, 64], probabilities: [0.25, 0.75]}
  warmup: {min: 10, max: 50}
  clip: {distribution: q_uniform, min: 0.5, max: 2, q: 0.5}
  steps: {value: 300}
`)
	}
	g6, ok, err := Assemble(wandb(6), nil, nil, nil, 2)
	if err != nil || !ok {
		t.Fatal(err)
	}
	pts, err := g6.Points()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 12 {
		t.Fatalf("%d points, want 6 draws × 2 seeds", len(pts))
	}
	if d := g6.Describe(); !strings.Contains(d, "6 draws (seed 7) of lr ~ log_uniform_values(0.0001, 0.01), width 32,64, warmup ~ int_uniform(10, 50)") || !strings.HasSuffix(d, "× seed 1,2") {
		t.Errorf("description %q", d)
	}
	for i, p := range pts {
		vals := map[string]string{}
		for _, a := range p.Args {
			k, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			vals[k] = v
		}
		lr, _ := strconv.ParseFloat(vals["lr"], 64)
		warmup, err := strconv.Atoi(vals["warmup"])
		clip, _ := strconv.ParseFloat(vals["clip"], 64)
		if lr < 1e-4 || lr > 1e-2 || err != nil || warmup < 10 || warmup > 50 || math.Mod(clip, 0.5) != 0 || clip < 0.5 || clip > 2 ||
			(vals["width"] != "32" && vals["width"] != "64") || vals["steps"] != "300" || vals["seed"] != strconv.Itoa(i%2+1) {
			t.Errorf("point %s: %v", p.Name, p.Args)
		}
		if i%2 == 1 && !slices.Equal(p.Args[:len(p.Args)-1], pts[i-1].Args[:len(p.Args)-1]) {
			t.Errorf("the seeds of a draw differ beyond the seed: %v, %v", pts[i-1].Args, p.Args)
		}
		if !strings.HasPrefix(p.Name, "bijection-transformer-lr=") || strings.Contains(p.Name, "steps=") {
			t.Errorf("name %s", p.Name)
		}
	}
	again, _, _ := Assemble(wandb(6), nil, nil, nil, 2)
	pts2, _ := again.Points()
	if !samePoints(pts, pts2) {
		t.Error("the same file drew other points")
	}
	g10, _, _ := Assemble(wandb(10), nil, nil, nil, 2)
	pts10, err := g10.Points()
	if err != nil || len(pts10) != 20 || !samePoints(pts, pts10[:12]) {
		t.Errorf("run_cap 10 does not begin with run_cap 6's points (%v)", err)
	}
	if ext, ok := extend(pts, pts10); !ok || len(ext) != 20 {
		t.Errorf("run_cap 10 does not extend run_cap 6's sweep")
	}

	hydra := write("h.yaml", `hydra:
  sweeper:
    _target_: hydra_plugins.hydra_optuna_sweeper.optuna_sweeper.OptunaSweeper
    direction: minimize
    sampler:
      _target_: optuna.samplers.RandomSampler
      seed: 7
    n_trials: 5
    params:
      lr: tag(log, interval(1e-4, 1e-2))
      warmup: int(interval(10, 50))
      clip: interval(0.5, 2)
      width: choice(32, 64)
`)
	gh, _, err := Assemble(hydra, nil, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ph, err := gh.Points()
	if err != nil || len(ph) != 5 || gh.Random == nil || gh.Random.Seed != 7 || gh.Axes[2].Dist == nil || gh.Axes[2].Dist.Kind != "log_uniform_values" {
		t.Errorf("hydra's random search: %d points, %v, %+v", len(ph), err, gh)
	}

	few := write("few.yaml", "method: random\nrun_cap: 5\nparameters:\n  width: {values: [32, 64]}\n")
	gf, _, err := Assemble(few, nil, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gf.Points(); err == nil || !strings.Contains(err.Error(), "only 2 different configurations") {
		t.Errorf("5 draws of 2 values: %v", err)
	}
	seeded := write("seed.yaml", "method: random\nrun_cap: 2\nparameters:\n  seed: {min: 1, max: 9}\n")
	gs, _, err := Assemble(seeded, nil, nil, nil, 0)
	if err == nil {
		_, err = gs.Points()
	}
	if err == nil || !strings.Contains(err.Error(), "trains every seed listed") {
		t.Errorf("a distribution for the seed: %v", err)
	}
}
