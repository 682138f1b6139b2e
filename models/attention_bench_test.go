package models

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
)

// BenchmarkAttention times the float32 attention kernel's forward and backward pass at the
// quick (d=64, 4 heads, batch 64) and paper (d=192, 6 heads, batch 256) sizes, T=37, on two
// workers, with its products on the BLAS backend ("blas") and on the small kernels ("smm").
func BenchmarkAttention(b *testing.B) {
	be, err := gemm.Open("auto")
	if err != nil {
		b.Fatal(err)
	}
	for _, sz := range []struct {
		name       string
		n, d, h, t int
	}{{"quick", 64, 64, 4, 37}, {"paper", 256, 192, 6, 37}, {"paper16", 16, 192, 6, 37}} {
		rng := rand.New(rand.NewPCG(3, 4))
		m := sz.n * sz.t
		in := []*tensor.Dense{randDense32(rng, m, 3*sz.d)}
		gout := randDense32(rng, m, sz.d)
		out := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(m, sz.d))
		gin := []*tensor.Dense{tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(m, 3*sz.d))}
		mask := make([]float64, sz.h)
		for i := range mask {
			mask[i] = 1
		}
		for _, blas := range []bool{true, false} {
			path := "smm"
			if blas {
				path = "blas"
			}
			if !blas && !haveAVX2 {
				continue
			}
			k := &attnKernel[float32]{be: be, p: par.Pool{Workers: 2}, t: sz.t, heads: sz.h, mask: mask, blas: blas}
			b.Run(fmt.Sprintf("%s/%s", sz.name, path), func(b *testing.B) {
				cpu0 := cpuTime()
				for i := 0; i < b.N; i++ {
					k.forward(in, out)
					k.backward(in, out, gout, 0, gin)
				}
				reportCPU(b, cpu0)
			})
		}
	}
}

func randDense32(rng *rand.Rand, r, c int) *tensor.Dense {
	d := make([]float32, r*c)
	for i := range d {
		d[i] = float32(rng.NormFloat64())
	}
	return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(d))
}
