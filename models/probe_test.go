package models

import (
	"math"
	"testing"
	"windtunnel/models/arch"

	"gorgonia.org/tensor"

	"windtunnel/tunnels"
)

func probeModel(t *testing.T) (Model, tunnels.Tunnel, *tunnels.Batch) {
	t.Helper()
	bij, _ := tunnels.NewBijection(6)
	m, err := NewTransformer(arch.TransformerConfig{Layers: 2, Heads: 2, Width: 8, MLP: 12}, bij, Options{Dtype: tensor.Float64, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	scaleParams(m, 20, 4) // weights large enough for visibly non-uniform attention
	b := tunnels.NewBatch(bij, 5)
	b.Fill(bij, tunnels.ProbeStream(1), 0)
	return m, bij, b
}

func TestProbeShapes(t *testing.T) {
	m, tn, b := probeModel(t)
	pr, err := m.Probe(tn, b)
	if err != nil {
		t.Fatal(err)
	}
	T, P, d := tn.SeqLen(), len(tn.Positions()), 8
	if pr.N != 5 || pr.T != T || pr.P != P || pr.Width != d || pr.Layers != 2 || pr.Heads != 2 {
		t.Fatalf("probe header %+v", pr)
	}
	for l := 0; l < 2; l++ {
		for name, s := range map[string][]float64{"Q": pr.Q[l], "K": pr.K[l], "V": pr.V[l], "Resid": pr.Resid[l]} {
			if len(s) != 5*T*d {
				t.Errorf("%s[%d] has %d values, want %d", name, l, len(s), 5*T*d)
			}
		}
		if len(pr.Attn[l]) != 5*2*P*T {
			t.Fatalf("Attn[%d] has %d values, want %d", l, len(pr.Attn[l]), 5*2*P*T)
		}
		// Each attention row sums to 1 over the causal prefix and is 0 after it.
		for item := 0; item < 5*2; item++ {
			for i, pos := range pr.Positions {
				row := pr.Attn[l][(item*P+i)*T:][:T]
				s := 0.0
				for j, v := range row {
					if j > pos && v != 0 {
						t.Fatalf("layer %d row %d: weight %g after the query position %d", l, i, v, pos)
					}
					s += v
				}
				if math.Abs(s-1) > 1e-12 {
					t.Fatalf("layer %d row %d sums to %g", l, i, s)
				}
			}
		}
	}
	if len(pr.Final) != 5*P*d || len(pr.Dist) != 5*P*tn.Classes() {
		t.Fatalf("Final %d, Dist %d", len(pr.Final), len(pr.Dist))
	}
	// The probe's distributions are Predict's.
	q := make([]float64, len(pr.Dist))
	if err := m.Predict(tn, b, q); err != nil {
		t.Fatal(err)
	}
	for i := range q {
		if q[i] != pr.Dist[i] {
			t.Fatalf("Dist[%d] = %g, Predict %g", i, pr.Dist[i], q[i])
		}
	}
}

// A unit switched off leaves the residual stream unchanged across its layer; switching
// off a layer's attention equals switching off each of its heads; zeroing a head whose
// output projection is already zero changes nothing.
func TestUnitsAndHeadAblation(t *testing.T) {
	m, tn, b := probeModel(t)
	predict := func() []float64 {
		q := make([]float64, b.N*b.P*b.C)
		if err := m.Predict(tn, b, q); err != nil {
			t.Fatal(err)
		}
		return q
	}
	maxDiff := func(a, c []float64) float64 {
		w := 0.0
		for i := range a {
			w = max(w, math.Abs(a[i]-c[i]))
		}
		return w
	}
	units := m.Units()
	if len(units) != 4 || units[0] != (Unit{"attn", 0}) || units[3] != (Unit{"mlp", 1}) {
		t.Fatalf("units %v", units)
	}
	base := predict()

	// Layer 1's attention off, as a unit and as both heads.
	if err := m.SetUnit(2, false); err != nil {
		t.Fatal(err)
	}
	unitOff := predict()
	m.SetUnit(2, true)
	m.SetHeadMask(1, 0, false)
	m.SetHeadMask(1, 1, false)
	headsOff := predict()
	m.SetHeadMask(1, 0, true)
	m.SetHeadMask(1, 1, true)
	if d := maxDiff(unitOff, headsOff); d > 1e-12 {
		t.Errorf("attention unit off differs from all heads off by %g", d)
	}
	if d := maxDiff(base, unitOff); d < 1e-6 {
		t.Errorf("switching off layer 1's attention changed nothing (%g)", d)
	}
	if d := maxDiff(base, predict()); d != 0 {
		t.Errorf("restoring the units did not restore the output (%g)", d)
	}

	// MLP of layer 0 off: the residual after layer 0 equals the stream after its attention.
	m.SetUnit(1, false)
	pr, err := m.Probe(tn, b)
	if err != nil {
		t.Fatal(err)
	}
	m.SetUnit(1, true)
	if d := maxDiff(base, pr.Dist); d < 1e-6 {
		t.Errorf("switching off layer 0's MLP changed nothing (%g)", d)
	}

	// Zero the rows of layer 0's Wo that head 1 writes through: ablating that head is a no-op.
	for _, p := range m.Params() {
		if p.Name == "layer0.wo" {
			w := p.Value.Data().([]float64)
			d := 8
			for r := d / 2; r < d; r++ {
				for c := 0; c < d; c++ {
					w[r*d+c] = 0
				}
			}
		}
	}
	zeroed := predict()
	m.SetHeadMask(0, 1, false)
	ablated := predict()
	m.SetHeadMask(0, 1, true)
	if d := maxDiff(zeroed, ablated); d > 1e-12 {
		t.Errorf("ablating a head with a zero output projection changed the output by %g", d)
	}
	if err := m.SetUnit(9, false); err == nil {
		t.Error("SetUnit(9) on 4 units: no error")
	}
}

func TestPrefixMLPProbeAndUnits(t *testing.T) {
	bij, _ := tunnels.NewBijection(5)
	m, err := NewPrefixMLP(arch.PrefixMLPConfig{Blocks: 2, Width: 6, Hidden: 10}, bij, Options{Dtype: tensor.Float64, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	b := tunnels.NewBatch(bij, 3)
	b.Fill(bij, tunnels.ProbeStream(1), 0)
	pr, err := m.Probe(bij, b)
	if err != nil {
		t.Fatal(err)
	}
	P := len(bij.Positions())
	if pr.Attn != nil || pr.Q != nil || pr.Heads != 0 {
		t.Errorf("MLP probe has attention: %d layers, %d heads", len(pr.Attn), pr.Heads)
	}
	if len(pr.Resid) != 2 || pr.ResidRows != 3*P || len(pr.Final) != 3*P*6 {
		t.Errorf("MLP probe: %d resid layers of %d rows, final %d", len(pr.Resid), pr.ResidRows, len(pr.Final))
	}
	if u := m.Units(); len(u) != 2 || u[1] != (Unit{"layer", 1}) {
		t.Errorf("MLP units %v", u)
	}
	// Block 1 off: its output equals its input.
	m.SetUnit(1, false)
	pr2, err := m.Probe(bij, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pr2.Resid[1] {
		if pr2.Resid[1][i] != pr2.Resid[0][i] {
			t.Fatalf("block 1 off: residual %d changed from %g to %g", i, pr2.Resid[0][i], pr2.Resid[1][i])
		}
	}
}
