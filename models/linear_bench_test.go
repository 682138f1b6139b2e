package models

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
)

// BenchmarkLinearGELU times the float32 bias+GELU linear kernel's forward and backward pass
// (the MLP's first layer) at the quick (64·37 rows, 64→256) and paper (256·37 rows,
// 192→768) sizes on two workers, in each GELU form (tanh: the vector kernel; erf: Go code).
func BenchmarkLinearGELU(b *testing.B) {
	be, err := gemm.Open("auto")
	if err != nil {
		b.Fatal(err)
	}
	for _, sz := range []struct {
		name         string
		m, kin, kout int
	}{{"quick", 64 * 37, 64, 256}, {"paper", 256 * 37, 192, 768}} {
		rng := rand.New(rand.NewPCG(5, 6))
		in := []*tensor.Dense{randDense32(rng, sz.m, sz.kin), randDense32(rng, sz.kin, sz.kout), randDense32(rng, 1, sz.kout)}
		gout := randDense32(rng, sz.m, sz.kout)
		out := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.m, sz.kout))
		gin := []*tensor.Dense{
			tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.m, sz.kin)),
			tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.kin, sz.kout)),
			tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(1, sz.kout)),
		}
		for _, form := range []struct {
			name string
			act  activation
		}{{"tanh", actGELU}, {"erf", actGELUErf}} {
			k := &linKernel[float32]{be: be, p: par.Pool{Workers: 2}, bias: true, act: form.act}
			b.Run(fmt.Sprintf("%s/%s/fwd+bwd", sz.name, form.name), func(b *testing.B) {
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

// BenchmarkLinearResidual times the float32 bias+residual linear kernel's forward and
// backward pass (the MLP's second layer) at the quick (64·37 rows, 256→64) and paper
// (256·37 rows, 768→192) sizes on two workers.
func BenchmarkLinearResidual(b *testing.B) {
	be, err := gemm.Open("auto")
	if err != nil {
		b.Fatal(err)
	}
	for _, sz := range []struct {
		name         string
		m, kin, kout int
	}{{"quick", 64 * 37, 256, 64}, {"paper", 256 * 37, 768, 192}} {
		rng := rand.New(rand.NewPCG(5, 7))
		in := []*tensor.Dense{randDense32(rng, sz.m, sz.kin), randDense32(rng, sz.kin, sz.kout), randDense32(rng, 1, sz.kout), randDense32(rng, sz.m, sz.kout)}
		gout := randDense32(rng, sz.m, sz.kout)
		out := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.m, sz.kout))
		gin := []*tensor.Dense{
			tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.m, sz.kin)),
			tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.kin, sz.kout)),
			tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(1, sz.kout)),
			tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.m, sz.kout)),
		}
		k := &linKernel[float32]{be: be, p: par.Pool{Workers: 2}, bias: true, res: true}
		b.Run(fmt.Sprintf("%s/fwd", sz.name), func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				k.forward(in, out)
			}
			reportCPU(b, cpu0)
		})
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

// reportCPU reports the CPU time of all threads per iteration since cpu0 (on a shared
// machine it varies less with the load than the wall time).
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
	}
}

// BenchmarkRMSNorm times the float32 RMSNorm kernel's forward and backward pass at the
// quick (64·37 rows, d=64) and paper (256·37 rows, d=192) sizes on two workers.
func BenchmarkRMSNorm(b *testing.B) {
	for _, sz := range []struct {
		name string
		m, d int
	}{{"quick", 64 * 37, 64}, {"paper", 256 * 37, 192}} {
		rng := rand.New(rand.NewPCG(7, 8))
		in := []*tensor.Dense{randDense32(rng, sz.m, sz.d), randDense32(rng, 1, sz.d)}
		gout := randDense32(rng, sz.m, sz.d)
		out := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.m, sz.d))
		gin := []*tensor.Dense{
			tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(sz.m, sz.d)),
			tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(1, sz.d)),
		}
		k := &rmsKernel[float32]{eps: 1e-5, p: par.Pool{Workers: 2}}
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
