package models

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// recurrentModels builds the two baselines on small float64 configurations.
var recurrentModels = []struct {
	name string
	new  func(tunnels.Tunnel, Options) (Model, error)
}{
	{"lstm", func(t tunnels.Tunnel, o Options) (Model, error) {
		return NewLSTM(arch.LSTMConfig{Layers: 2, Width: 6}, t, o)
	}},
	{"mamba", func(t tunnels.Tunnel, o Options) (Model, error) {
		return NewMamba(arch.MambaConfig{Layers: 2, Width: 6, State: 3, Expand: 2, Conv: 3}, t, o)
	}},
}

func smallTunnels() []struct {
	name string
	tn   tunnels.Tunnel
	mode tunnels.TargetMode
} {
	bij, _ := tunnels.NewBijection(5)
	hmm, _ := tunnels.NewHMM(3, 3, 4)
	rec, _ := tunnels.NewRecall(3, 6, 6, 2, 2)
	return []struct {
		name string
		tn   tunnels.Tunnel
		mode tunnels.TargetMode
	}{
		{"bijection/sampled", bij, tunnels.Sampled},
		{"hmm/posterior", hmm, tunnels.Posterior},
		{"recall/sampled", rec, tunnels.Sampled},
	}
}

func TestRecurrentGradients(t *testing.T) {
	for _, mk := range recurrentModels {
		for _, c := range smallTunnels() {
			t.Run(mk.name+"/"+c.name, func(t *testing.T) {
				m, err := mk.new(c.tn, Options{Dtype: tensor.Float64, Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				// Larger weights than the init make every path matter.
				scaleParams(m, 0.5, 4)
				checkGradients(t, m, c.tn, c.mode)
			})
		}
	}
}

// TestRecurrentFloat32 checks that the float32 models (fast exp, tanh, log) follow float64.
func TestRecurrentFloat32(t *testing.T) {
	for _, mk := range recurrentModels {
		for _, c := range smallTunnels() {
			t.Run(mk.name+"/"+c.name, func(t *testing.T) {
				b := tunnels.NewBatch(c.tn, 4)
				b.Fill(c.tn, tunnels.TrainStream(5), 0)
				var loss [2]float64
				for i, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
					m, err := mk.new(c.tn, Options{Dtype: dt, Seed: 3})
					if err != nil {
						t.Fatal(err)
					}
					if loss[i], err = m.TrainStep(c.tn, b, c.mode); err != nil {
						t.Fatal(err)
					}
				}
				if e := math.Abs(loss[0]-loss[1]) / loss[1]; e > 1e-5 {
					t.Errorf("float32 loss %.8f, float64 %.8f", loss[0], loss[1])
				}
			})
		}
	}
}

func TestRecurrentProbeAndGates(t *testing.T) {
	for _, mk := range recurrentModels {
		for _, c := range smallTunnels() {
			t.Run(mk.name+"/"+c.name, func(t *testing.T) {
				m, err := mk.new(c.tn, Options{Dtype: tensor.Float64, Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				scaleParams(m, 0.5, 4)
				if l, h := m.Heads(); l != 0 || h != 0 {
					t.Errorf("Heads() = %d, %d, want 0, 0", l, h)
				}
				if err := m.AttentionEntropy(c.tn, tunnels.NewBatch(c.tn, 1), nil); err == nil {
					t.Error("AttentionEntropy: no error from a model without attention")
				}
				units := m.Units()
				if len(units) != 2 || units[0] != (Unit{Kind: "layer", Layer: 0}) || units[1] != (Unit{Kind: "layer", Layer: 1}) {
					t.Fatalf("units %v, want layer 0 and layer 1", units)
				}
				b := tunnels.NewBatch(c.tn, 3)
				b.Fill(c.tn, tunnels.TrainStream(9), 0)
				pr, err := m.Probe(c.tn, b)
				if err != nil {
					t.Fatal(err)
				}
				const d = 6
				T, P := c.tn.SeqLen(), len(c.tn.Positions())
				if pr.Attn != nil || pr.Q != nil || pr.K != nil || pr.V != nil {
					t.Error("probe of a recurrent model has attention or Q/K/V")
				}
				if len(pr.Resid) != 2 || pr.ResidRows != 3*T || pr.Width != d {
					t.Fatalf("probe: %d residual layers of %d rows, width %d; want 2 of %d, width %d", len(pr.Resid), pr.ResidRows, pr.Width, 3*T, d)
				}
				for l, r := range pr.Resid {
					if len(r) != 3*T*d {
						t.Errorf("Resid[%d] has %d values, want %d", l, len(r), 3*T*d)
					}
				}
				if len(pr.Final) != 3*P*d || len(pr.Dist) != 3*P*c.tn.Classes() {
					t.Errorf("Final %d, Dist %d values; want %d, %d", len(pr.Final), len(pr.Dist), 3*P*d, 3*P*c.tn.Classes())
				}
				// Layer 1 off: its output is its input, the stream after layer 0.
				if err := m.SetUnit(1, false); err != nil {
					t.Fatal(err)
				}
				off, err := m.Probe(c.tn, b)
				if err != nil {
					t.Fatal(err)
				}
				if e := maxRelErr(off.Resid[1], off.Resid[0]); e != 0 {
					t.Errorf("layer 1 off: output differs from input by %.3g", e)
				}
				if e := maxRelErr(off.Resid[0], pr.Resid[0]); e != 0 {
					t.Errorf("layer 1 off changed layer 0's output by %.3g", e)
				}
				if maxRelErr(off.Dist, pr.Dist) == 0 {
					t.Error("layer 1 off did not change the prediction")
				}
				// Layer 0 off as well: the stream after layer 0 is the embedding.
				_ = m.SetUnit(0, false)
				off, err = m.Probe(c.tn, b)
				if err != nil {
					t.Fatal(err)
				}
				tok, pos := m.Params()[0].Value.Float64s(), m.Params()[1].Value.Float64s()
				emb := make([]float64, 3*T*d)
				for r, id := range b.Tokens {
					for j := 0; j < d; j++ {
						emb[r*d+j] = tok[id*d+j] + pos[(r%T)*d+j]
					}
				}
				if e := maxRelErr(off.Resid[0], emb); e != 0 {
					t.Errorf("layer 0 off: output differs from the embedding by %.3g", e)
				}
				_ = m.SetUnit(0, true)
				_ = m.SetUnit(1, true)
				on, err := m.Probe(c.tn, b)
				if err != nil {
					t.Fatal(err)
				}
				if e := maxRelErr(on.Dist, pr.Dist); e != 0 {
					t.Errorf("both layers back on: prediction differs by %.3g", e)
				}
			})
		}
	}
}

func TestRecurrentParamCounts(t *testing.T) {
	bij, _ := tunnels.NewBijection(20)
	hmm, _ := tunnels.NewHMM(5, 5, 20)
	for _, tn := range []tunnels.Tunnel{bij, hmm} {
		target := TransformerParams(arch.TransformerConfig{Layers: 4, Heads: 4, Width: 64}, tn, 0)
		lc := MatchLSTM(target, tn, 0)
		lm, err := NewLSTM(lc, tn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if lm.NumParams() != LSTMParams(lc, tn, 0) {
			t.Errorf("LSTM %+v: built %d parameters, formula %d", lc, lm.NumParams(), LSTMParams(lc, tn, 0))
		}
		mc := MatchMamba(target, 4, tn, 0)
		mb, err := NewMamba(mc, tn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if mb.NumParams() != MambaParams(mc, tn, 0) {
			t.Errorf("Mamba %+v: built %d parameters, formula %d", mc, mb.NumParams(), MambaParams(mc, tn, 0))
		}
		for _, got := range []struct {
			name string
			n    int
		}{{"lstm", lm.NumParams()}, {"mamba", mb.NumParams()}} {
			if e := math.Abs(float64(got.n-target)) / float64(target); e > 0.01 {
				t.Errorf("%s: %s has %d parameters, %.2f%% from the transformer's %d", tn.Name(), got.name, got.n, 100*e, target)
			}
		}
		t.Logf("%s: transformer %d, LSTM %+v %d, Mamba %+v %d", tn.Name(), target, lc, lm.NumParams(), mc, mb.NumParams())
	}
	for _, c := range []struct {
		err  error
		name string
	}{
		{arch.LSTMConfig{Layers: 0, Width: 4}.Validate(), "LSTM.Layers"},
		{arch.LSTMConfig{Layers: 1, Width: 0}.Validate(), "LSTM.Width"},
		{arch.MambaConfig{Layers: 1, Width: 4, State: -1}.Validate(), "Mamba.State"},
		{arch.MambaConfig{Layers: 1, Width: 4, Expand: 99}.Validate(), "Mamba.Expand"},
		{arch.MambaConfig{Layers: 1, Width: 4, Conv: -2}.Validate(), "Mamba.Conv"},
	} {
		var fe *arch.FieldError
		if !errors.As(c.err, &fe) || fe.Field != c.name || !strings.Contains(c.err.Error(), c.name) {
			t.Errorf("Validate: %v, want a field error naming %s", c.err, c.name)
		}
	}
}
