package models

import (
	"math/rand/v2"
	"strings"
	"testing"
	"windtunnel/models/arch"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"windtunnel/backends/par"
	"windtunnel/tunnels"
)

// TestSumEngineAdd: sumEngine's Add equals the standard engine's, bit for bit, for both
// float types, sizes on either side of the split, with the result in a separate tensor, in
// either operand or unsafely in the first, and hands other calls (a new result, increments)
// to the standard engine.
func TestSumEngineAdd(t *testing.T) {
	e := sumEngine{p: par.Pool{Workers: 3}}
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, n := range []int{1, 17, sumMinPer - 1, 2*sumMinPer + 3, 5 * sumMinPer} {
			for _, into := range []string{"new", "a", "b", "unsafe"} {
				rng := rand.New(rand.NewPCG(uint64(n), 7))
				mk := func() *tensor.Dense {
					d := tensor.New(tensor.Of(dt), tensor.WithShape(1, n), tensor.WithEngine(e))
					for i := 0; i < n; i++ {
						if dt == tensor.Float32 {
							d.Float32s()[i] = float32(rng.NormFloat64())
						} else {
							d.Float64s()[i] = rng.NormFloat64()
						}
					}
					return d
				}
				a, b := mk(), mk()
				want, err := tensor.Add(a.Clone().(*tensor.Dense), b.Clone().(*tensor.Dense))
				if err != nil {
					t.Fatal(err)
				}
				reuse := map[string]*tensor.Dense{"new": tensor.New(tensor.Of(dt), tensor.WithShape(1, n)), "a": a, "b": b, "unsafe": a}[into]
				opt := tensor.WithReuse(reuse)
				if into == "unsafe" {
					opt = tensor.UseUnsafe()
				}
				got, err := tensor.Add(a, b, opt)
				if err != nil {
					t.Fatalf("%v n=%d into %s: %v", dt, n, into, err)
				}
				if got != tensor.Tensor(reuse) {
					t.Fatalf("%v n=%d into %s: result is not the preallocated tensor", dt, n, into)
				}
				wd, gd := want.(*tensor.Dense), got.(*tensor.Dense)
				for i := 0; i < n; i++ {
					if wd.Get(i) != gd.Get(i) {
						t.Fatalf("%v n=%d into %s: element %d = %v, want %v", dt, n, into, i, gd.Get(i), wd.Get(i))
					}
				}
			}
		}
	}
	// Calls it does not take: a new result, and an increment.
	a := tensor.New(tensor.WithShape(1, 3), tensor.WithBacking([]float32{1, 2, 3}), tensor.WithEngine(e))
	b := tensor.New(tensor.WithShape(1, 3), tensor.WithBacking([]float32{10, 20, 30}))
	got, err := tensor.Add(a, b)
	if err != nil || got.(*tensor.Dense).Float32s()[2] != 33 {
		t.Fatalf("plain add: %v, %v", got, err)
	}
	incr := tensor.New(tensor.WithShape(1, 3), tensor.WithBacking([]float32{100, 100, 100}))
	if _, err := tensor.Add(a, b, tensor.WithIncr(incr)); err != nil || incr.Float32s()[0] != 111 {
		t.Fatalf("increment: %v, %v", incr, err)
	}
}

// TestGradientSumsUseSumEngine: in a transformer's training graph every value the tape
// machine holds, the operands of gorgonia's gradient Add nodes included, is on sumEngine,
// so those sums take its parallel path.
func TestGradientSumsUseSumEngine(t *testing.T) {
	bij, err := tunnels.NewBijection(5)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewTransformer(arch.TransformerConfig{Layers: 2, Heads: 2, Width: 8}, bij, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	b := tunnels.NewBatch(bij, 4)
	b.Fill(bij, tunnels.TrainStream(1), 0)
	if _, err := m.TrainStep(bij, b, bij.DefaultTarget()); err != nil {
		t.Fatal(err)
	}
	adds := 0
	for _, c := range m.(*net[float32]).graphs {
		for _, n := range c.g.AllNodes() {
			if n.Op() == nil || !strings.HasPrefix(n.Op().String(), "+") {
				continue
			}
			adds++
			group := G.Nodes{n}
			for ch := c.g.From(n.ID()); ch.Next(); {
				group = append(group, ch.Node().(*G.Node))
			}
			if len(group) != 3 {
				t.Fatalf("%v: %d operands, want 2", n, len(group)-1)
			}
			for _, in := range group {
				v, ok := in.Value().(tensor.Tensor)
				if !ok {
					t.Fatalf("%v: value %T", in, in.Value())
				}
				if _, ok := v.Engine().(sumEngine); !ok {
					t.Errorf("%v: engine %T, want sumEngine", in, v.Engine())
				}
			}
		}
	}
	if adds == 0 {
		t.Fatal("no gradient Add nodes found: the test no longer looks at what it should")
	}
	t.Logf("%d gradient sums", adds)
}
