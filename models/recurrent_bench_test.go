package models

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/backends/cpuclock"
	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// BenchmarkRecurrentStep times a float32 training step (forward and backward, no optimiser)
// of the quick-preset sizes on bijection V=20, batch 64: the transformer (L=4, H=4, d=64) and
// the LSTM and Mamba matched to its parameter count, with OpenBLAS when found, 2 workers.
func BenchmarkRecurrentStep(b *testing.B) {
	tn, _ := tunnels.NewBijection(20)
	tc := arch.TransformerConfig{Layers: 4, Heads: 4, Width: 64}
	target := TransformerParams(tc, tn, 0)
	for _, c := range []struct {
		name string
		new  func(Options) (Model, error)
	}{
		{"transformer", func(o Options) (Model, error) { return NewTransformer(tc, tn, o) }},
		{"lstm", func(o Options) (Model, error) { return NewLSTM(MatchLSTM(target, tn, 0), tn, o) }},
		{"mamba", func(o Options) (Model, error) { return NewMamba(MatchMamba(target, tc.Layers, tn, 0), tn, o) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			be, err := gemm.Open("auto")
			if err != nil {
				b.Fatal(err)
			}
			m, err := c.new(Options{Backend: gemm.Parallel(be, 2), Workers: 2, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			benchTrainSteps(b, m, tn)
		})
	}
}

// benchTrainSteps times b.N training steps of m (forward and backward, no optimiser) on one
// batch of 64 sequences of tn after one untimed step, reporting wall and CPU ms a step.
func benchTrainSteps(b *testing.B, m Model, tn tunnels.Tunnel) {
	bt := tunnels.NewBatch(tn, 64)
	bt.Fill(tn, tunnels.TrainStream(1), 0)
	if _, err := m.TrainStep(tn, bt, tunnels.Sampled); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuclock.Process()
	for i := 0; i < b.N; i++ {
		if _, err := m.TrainStep(tn, bt, tunnels.Sampled); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/step")
	b.ReportMetric(float64(cpuclock.Process()-c0)/1e6/float64(b.N), "cpu-ms/step")
}

// BenchmarkScanKernel times the float32 selective scan alone on one worker at the quick
// Mamba's sizes (64 sequences of 37 tokens, E=160, N=16), in CPU nanoseconds per state
// element (sequence × token × channel × state): the portable loops, the AVX2 and the AVX-512
// lane kernels (where the CPU has them), in one invocation.
func BenchmarkScanKernel(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, L, e, S := 64, 37, 160, 16
	m := n * L
	mk := func(r, c int, a float64) *tensor.Dense {
		v := make([]float32, r*c)
		for i := range v {
			v[i] = float32((2*rng.Float64() - 1) * a)
		}
		return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(v))
	}
	in := []*tensor.Dense{mk(m, e, 1), mk(m, e, 1.5), mk(e, S, 1), mk(m, S, 1), mk(m, S, 1), mk(1, e, 1), mk(m, e, 2)}
	gin := []*tensor.Dense{mk(m, e, 1), mk(m, e, 1), mk(e, S, 1), mk(m, S, 1), mk(m, S, 1), mk(1, e, 1), mk(m, e, 1)}
	out := mk(m, e, 1)
	run := func(b *testing.B, f func()) {
		c0 := cpuclock.Process()
		for i := 0; i < b.N; i++ {
			f()
		}
		b.ReportMetric(float64(cpuclock.Process()-c0)/float64(b.N*m*e*S), "cpu-ns/elem")
	}
	for _, path := range []struct {
		name string
		p    scanPath
	}{{"portable", scanPortable}, {"avx2", scanAVX2}, {"avx512", scanAVX512}} {
		if resolve[float32](path.p, S) != path.p {
			continue
		}
		k := &scanKernel[float32]{p: par.Pool{Workers: 1}, t: L, use: path.p}
		k.forward(in, out)
		b.Run("forward/"+path.name, func(b *testing.B) { run(b, func() { k.forward(in, out) }) })
		b.Run("backward/"+path.name, func(b *testing.B) { run(b, func() { k.backward(in, out, out, 0, gin) }) })
	}
}
