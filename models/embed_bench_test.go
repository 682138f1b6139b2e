package models

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"
)

// BenchmarkEmbed times the float32 embedding kernel's forward and backward pass (token and
// position tables, V=40) at the quick (64·37 rows, d=64) and paper (256·37 rows, d=192)
// sizes: both run on the caller's goroutine.
func BenchmarkEmbed(b *testing.B) {
	for _, sz := range []struct {
		name       string
		n, t, d, v int
	}{{"quick", 64, 37, 64, 40}, {"paper", 256, 37, 192, 40}} {
		rng := rand.New(rand.NewPCG(1, 2))
		ids := make([]int, sz.n*sz.t)
		for i := range ids {
			ids[i] = rng.IntN(sz.v)
		}
		k := &embedKernel[float32]{t: sz.t, ids: &ids}
		in := []*tensor.Dense{randDense32(rng, sz.v, sz.d), randDense32(rng, sz.t+1, sz.d)}
		out := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.n*sz.t, sz.d))
		gout := randDense32(rng, sz.n*sz.t, sz.d)
		gin := []*tensor.Dense{tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.v, sz.d)), tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.t+1, sz.d))}
		b.Run(fmt.Sprintf("%s/fwd+bwd", sz.name), func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				k.forward(in, out)
				k.backward(in, out, gout, 0, gin)
			}
			reportCPU(b, cpu0)
		})
	}
}
