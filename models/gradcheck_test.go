package models

import (
	"math"
	"math/rand/v2"
	"testing"
	"windtunnel/models/arch"

	"gorgonia.org/tensor"

	"windtunnel/tunnels"
)

// checkGradients compares every parameter gradient of one float64 training step with
// central finite differences of the loss on a sample of entries.
func checkGradients(t *testing.T, m Model, tn tunnels.Tunnel, mode tunnels.TargetMode) {
	t.Helper()
	b := tunnels.NewBatch(tn, 3)
	b.Fill(tn, tunnels.TrainStream(7), 0)
	if _, err := m.TrainStep(tn, b, mode); err != nil {
		t.Fatal(err)
	}
	grads := map[string][]float64{}
	for _, p := range m.Params() {
		grads[p.Name] = append([]float64(nil), p.Grad.Data().([]float64)...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const h, tol = 1e-5, 1e-6
	worst := 0.0
	for _, p := range m.Params() {
		v := p.Value.Data().([]float64)
		for s := 0; s < 6; s++ {
			i := rng.IntN(len(v))
			old := v[i]
			v[i] = old + h
			lp, err := m.TrainStep(tn, b, mode)
			if err != nil {
				t.Fatal(err)
			}
			v[i] = old - h
			lm, _ := m.TrainStep(tn, b, mode)
			v[i] = old
			num := (lp - lm) / (2 * h)
			an := grads[p.Name][i]
			err2 := math.Abs(num-an) / math.Max(1e-4, math.Abs(num)+math.Abs(an))
			worst = math.Max(worst, err2)
			if err2 > tol && math.Abs(num-an) > 1e-9 {
				t.Errorf("%s[%d]: analytic %.10g, numeric %.10g (rel %.2g)", p.Name, i, an, num, err2)
			}
		}
	}
	t.Logf("worst relative gradient error %.3g", worst)
}

func TestTransformerGradients(t *testing.T) {
	bij, _ := tunnels.NewBijection(5)
	hmm, _ := tunnels.NewHMM(3, 3, 4)
	rec, _ := tunnels.NewRecall(3, 6, 6, 2, 2)
	cases := []struct {
		name string
		tn   tunnels.Tunnel
		mode tunnels.TargetMode
		gelu string
	}{
		{"bijection/sampled", bij, tunnels.Sampled, ""},
		{"bijection/posterior", bij, tunnels.Posterior, ""},
		{"bijection/posterior/erf", bij, tunnels.Posterior, arch.GELUErf},
		{"hmm/posterior", hmm, tunnels.Posterior, ""},
		{"recall/sampled", rec, tunnels.Sampled, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewTransformer(arch.TransformerConfig{Layers: 2, Heads: 2, Width: 8, MLP: 12}, c.tn, Options{Dtype: tensor.Float64, Seed: 3, GELU: c.gelu})
			if err != nil {
				t.Fatal(err)
			}
			// Larger weights than the N(0, 0.02) init make every path matter.
			scaleParams(m, 0.5, 4)
			_ = m.SetHeadMask(1, 1, false)
			checkGradients(t, m, c.tn, c.mode)
		})
	}
}

// scaleParams redraws every parameter uniformly in ±a so gradients are not tiny.
func scaleParams(m Model, a float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	for _, p := range m.Params() {
		v := p.Value.Data().([]float64)
		for i := range v {
			v[i] = (rng.Float64()*2 - 1) * a
		}
	}
}

func TestMLPGradients(t *testing.T) {
	bij, _ := tunnels.NewBijection(5)
	hmm, _ := tunnels.NewHMM(3, 3, 4)
	rec, _ := tunnels.NewRecall(3, 6, 6, 2, 2)
	for _, c := range []struct {
		name string
		tn   tunnels.Tunnel
		mode tunnels.TargetMode
	}{
		{"bijection/sampled", bij, tunnels.Sampled},
		{"bijection/posterior", bij, tunnels.Posterior},
		{"hmm/posterior", hmm, tunnels.Posterior}, // untied head
		{"recall/sampled", rec, tunnels.Sampled},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewMLP(arch.MLPConfig{Blocks: 2, Width: 6, Hidden: 10}, c.tn, Options{Dtype: tensor.Float64, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			scaleParams(m, 0.5, 6)
			checkGradients(t, m, c.tn, c.mode)
		})
	}
}

func TestPrefixMLPGradients(t *testing.T) {
	bij, _ := tunnels.NewBijection(5)
	hmm, _ := tunnels.NewHMM(3, 3, 4)
	for _, c := range []struct {
		name  string
		tn    tunnels.Tunnel
		mode  tunnels.TargetMode
		input string
	}{{"bijection", bij, tunnels.Sampled, "prefix"}, {"hmm", hmm, tunnels.Posterior, "prefix"}, {"bijection/token", bij, tunnels.Sampled, "token"}} {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewPrefixMLP(arch.PrefixMLPConfig{Blocks: 2, Width: 6, Hidden: 10, Input: c.input}, c.tn, Options{Dtype: tensor.Float64, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			scaleParams(m, 0.5, 6)
			checkGradients(t, m, c.tn, c.mode)
		})
	}
}

func TestParamCounts(t *testing.T) {
	bij, _ := tunnels.NewBijection(20)
	c := arch.TransformerConfig{Layers: 6, Heads: 6, Width: 192}
	if got := TransformerParams(c, bij, 0); got != 2677440 {
		t.Errorf("paper bijection transformer: %d parameters, want 2,677,440", got)
	}
	m, err := NewTransformer(arch.TransformerConfig{Layers: 2, Heads: 2, Width: 16}, bij, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.NumParams() != TransformerParams(arch.TransformerConfig{Layers: 2, Heads: 2, Width: 16}, bij, 0) {
		t.Errorf("built %d parameters, formula says otherwise", m.NumParams())
	}
	for _, target := range []int{m.NumParams(), 200_000, 2677440} {
		mc := MatchPrefixMLP(target, bij, 0)
		mm, err := NewPrefixMLP(mc, bij, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if e := math.Abs(float64(mm.NumParams()-target)) / float64(target); e > 0.01 {
			t.Errorf("prefix MLP %+v has %d parameters, %.2f%% from %d", mc, mm.NumParams(), 100*e, target)
		}
	}
}
