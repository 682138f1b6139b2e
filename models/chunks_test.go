package models

import (
	"math"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// TestProbeChunks: a probe run in passes of 3 sequences (of 7: a shorter last pass) holds
// the bits of one pass (gonum's products), with V and Resid of the first keep sequences
// only; the distributions and attention entropies of PredictChunks are those of Predict.
func TestProbeChunks(t *testing.T) {
	tn, _ := tunnels.NewHMM(3, 3, 6)
	for _, kind := range []string{arch.KindTransformer, arch.KindLSTM, arch.KindMLP} {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			t.Run(kind+"/"+dt.String(), func(t *testing.T) {
				m, err := New(arch.Spec{Kind: kind, Transformer: arch.TransformerConfig{Layers: 2, Heads: 2, Width: 16}}, tn, Options{Dtype: dt, Workers: 2, Seed: 4})
				if err != nil {
					t.Fatal(err)
				}
				b := tunnels.NewBatch(tn, 7)
				b.Fill(tn, tunnels.ProbeStream(2), 0)
				whole, err := m.Probe(tn, b)
				if err != nil {
					t.Fatal(err)
				}
				const keep = 2
				got, err := ProbeChunks(m, tn, b, 3, keep)
				if err != nil {
					t.Fatal(err)
				}
				same := func(what string, a, b []float64) {
					t.Helper()
					if len(a) != len(b) || !slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }) {
						t.Errorf("%s: %d values differ from one pass's %d", what, len(a), len(b))
					}
				}
				same("Dist", got.Dist, whole.Dist)
				same("Final", got.Final, whole.Final)
				for _, s := range []struct {
					name      string
					got, want [][]float64
					seqs      int
				}{{"Attn", got.Attn, whole.Attn, 7}, {"Q", got.Q, whole.Q, 7}, {"K", got.K, whole.K, 7}, {"V", got.V, whole.V, keep}, {"Resid", got.Resid, whole.Resid, keep}} {
					if len(s.got) != len(s.want) {
						t.Fatalf("%s: %d layers, want %d", s.name, len(s.got), len(s.want))
					}
					for l := range s.want {
						same(s.name, s.got[l], s.want[l][:len(s.want[l])/7*s.seqs])
					}
				}
				if got.N != 7 || got.ResidRows != whole.ResidRows/7*keep || got.Width != whole.Width {
					t.Errorf("N %d, ResidRows %d, Width %d; one pass: %d, %d, %d", got.N, got.ResidRows, got.Width, whole.N, whole.ResidRows, whole.Width)
				}
				q1, q2 := make([]float64, 7*b.P*b.C), make([]float64, 7*b.P*b.C)
				if err := m.Predict(tn, b, q1); err != nil {
					t.Fatal(err)
				}
				var a1, a2 [][]float64
				if l, h := m.Heads(); l > 0 {
					for range l {
						a1, a2 = append(a1, make([]float64, h)), append(a2, make([]float64, h))
					}
					if err := m.AttentionEntropy(tn, b, a1); err != nil {
						t.Fatal(err)
					}
				}
				if err := PredictChunks(m, tn, b, 3, q2, a2); err != nil {
					t.Fatal(err)
				}
				same("Predict", q2, q1)
				for l := range a1 {
					same("attention entropy", a2[l], a1[l])
				}
			})
		}
	}
}
