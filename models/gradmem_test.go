package models

import (
	"math"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// TestSharedGradients trains every model kind, in float32 and float64, beside a twin that
// keeps every gradient in its own buffer, on the same batches (a head and a unit switched
// off at the third step, where the model has them), and requires the same parameter
// gradients bit for bit at every step; the shared buffers must hold less than the
// gradients they serve.
func TestSharedGradients(t *testing.T) {
	hmm, _ := tunnels.NewHMM(3, 3, 6)
	bij, _ := tunnels.NewBijection(6)
	tc := arch.TransformerConfig{Layers: 3, Heads: 2, Width: 16}
	for _, kind := range arch.Kinds() {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			tn := tunnels.Tunnel(hmm)
			if kind == arch.KindPrefixMLP {
				tn = bij
			}
			t.Run(kind+"/"+dt.String(), func(t *testing.T) {
				mk := func(own bool) Model {
					m, err := New(arch.Spec{Kind: kind, Transformer: tc}, tn, Options{Dtype: dt, Workers: 2, Seed: 5})
					if err != nil {
						t.Fatal(err)
					}
					switch n := m.(type) {
					case *net[float32]:
						n.ownGrads = own
					case *net[float64]:
						n.ownGrads = own
					}
					return m
				}
				shared, own := mk(false), mk(true)
				b := tunnels.NewBatch(tn, 5)
				for step := 0; step < 4; step++ {
					b.Fill(tn, tunnels.TrainStream(3), uint64(step*5))
					for _, m := range []Model{shared, own} {
						if step == 2 {
							if l, _ := m.Heads(); l > 0 {
								if err := m.SetHeadMask(1, 0, false); err != nil {
									t.Fatal(err)
								}
							}
							if err := m.SetUnit(0, false); err != nil {
								t.Fatal(err)
							}
						}
						if _, err := m.TrainStep(tn, b, tunnels.Sampled); err != nil {
							t.Fatal(err)
						}
					}
					ps, po := shared.Params(), own.Params()
					for i := range ps {
						a, c := floats(ps[i].Grad), floats(po[i].Grad)
						for j := range a {
							if math.Float64bits(a[j]) != math.Float64bits(c[j]) {
								t.Fatalf("step %d: %s gradient [%d] is %v with shared buffers, %v without", step, ps[i].Name, j, a[j], c[j])
							}
						}
					}
				}
				served, held := sharedBytes(t, shared)
				if held == 0 || held >= served {
					t.Errorf("shared buffers hold %d values for gradients of %d", held, served)
				}
				t.Logf("%d activation-gradient values in %d shared", served, held)
			})
		}
	}
}

// sharedBytes sums the values of the shared gradient views of m's training graphs and of
// the distinct buffers behind them.
func sharedBytes(t *testing.T, m Model) (served, held int) {
	t.Helper()
	seen := map[uintptr]int{}
	visit := func(views []*tensor.Dense) {
		for _, v := range views {
			if v == nil {
				continue
			}
			served += v.Shape().TotalSize()
			p := v.Uintptr()
			seen[p] = max(seen[p], v.DataSize())
		}
	}
	switch n := m.(type) {
	case *net[float32]:
		for _, c := range n.graphs {
			for _, node := range c.g.AllNodes() {
				if b, ok := node.Op().(*bwdOp); ok {
					visit(b.shared)
				}
			}
		}
	case *net[float64]:
		for _, c := range n.graphs {
			for _, node := range c.g.AllNodes() {
				if b, ok := node.Op().(*bwdOp); ok {
					visit(b.shared)
				}
			}
		}
	}
	for _, s := range seen {
		held += s
	}
	return served, held
}

// TestSharedGradientsOrderCheck: when a graph's first step runs its backward ops in
// another order than the one its buffers were planned with (here: the plan's order
// reversed), every gradient goes back to a buffer of its own and the step's gradients are
// those of a model that never shared.
func TestSharedGradientsOrderCheck(t *testing.T) {
	tn, _ := tunnels.NewHMM(3, 3, 6)
	mk := func() *net[float32] {
		m, err := New(arch.Spec{Kind: arch.KindTransformer, Transformer: arch.TransformerConfig{Layers: 2, Heads: 2, Width: 16}}, tn, Options{Workers: 2, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return m.(*net[float32])
	}
	shared, own := mk(), mk()
	own.ownGrads = true
	b := tunnels.NewBatch(tn, 5)
	b.Fill(tn, tunnels.TrainStream(3), 0)
	c, err := shared.graph(tn, b.N, true, false)
	if err != nil {
		t.Fatal(err)
	}
	c.shareGradients()
	c.shared = true
	if len(c.order) < 2 {
		t.Fatalf("%d backward ops planned", len(c.order))
	}
	slices.Reverse(c.order)
	for _, m := range []Model{shared, own} {
		if _, err := m.TrainStep(tn, b, tunnels.Sampled); err != nil {
			t.Fatal(err)
		}
	}
	for _, op := range c.order {
		if op.shared != nil {
			t.Fatalf("%s still writes shared buffers after the order check failed", op)
		}
	}
	ps, po := shared.Params(), own.Params()
	for i := range ps {
		a, c := floats(ps[i].Grad), floats(po[i].Grad)
		for j := range a {
			if math.Float64bits(a[j]) != math.Float64bits(c[j]) {
				t.Fatalf("%s gradient [%d] is %v after the fallback, %v without sharing", ps[i].Name, j, a[j], c[j])
			}
		}
	}
}
