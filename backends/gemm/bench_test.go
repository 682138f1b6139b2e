package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

type benchBackend struct {
	name string
	b    Backend
	err  error
}

func benchBackends(b *testing.B) []benchBackend {
	ob, err := Open("openblas")
	list := []benchBackend{{"gonum", Gonum(), nil}, {"openblas", ob, err}}
	if err == nil {
		list = append(list, benchBackend{"parallel-openblas-2", Parallel(ob, 2), nil})
	} else {
		list = append(list, benchBackend{"parallel-openblas-2", nil, err})
	}
	packed := newGoBackend(bestKernel(), 1)
	packed.packAll = true // A packed even where the kernel reads it in place
	list = append(list, benchBackend{"go", Go(), nil}, benchBackend{"parallel-go-2", Parallel(Go(), 2), nil},
		benchBackend{"go-packed-a", packed, nil})
	// The other assembly kernels this CPU runs (AVX2 beside AVX-512), side by side.
	for _, k := range kernels()[1:] {
		if k.name != genericKernel.name {
			list = append(list, benchBackend{"go-" + k.name, newGoBackend(k, 1), nil},
				benchBackend{"parallel-go-2-" + k.name, newGoBackend(k, 2), nil})
		}
	}
	return list
}

type benchShape struct {
	tA, tB  blas.Transpose
	m, n, k int
}

func (s benchShape) String() string {
	t := func(x blas.Transpose) string {
		if x == blas.NoTrans {
			return "N"
		}
		return "T"
	}
	return fmt.Sprintf("%s%s/m=%d,n=%d,k=%d", t(s.tA), t(s.tB), s.m, s.n, s.k)
}

// benchSgemm times C = A·B (per the shape's transposes) and reports GFLOP/s.
func benchSgemm(b *testing.B, be Backend, s benchShape) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([]float32, s.m*s.k)
	bb := make([]float32, s.k*s.n)
	c := make([]float32, s.m*s.n)
	for i := range a {
		a[i] = rng.Float32() - 0.5
	}
	for i := range bb {
		bb[i] = rng.Float32() - 0.5
	}
	lda, ldb := s.k, s.n
	if s.tA != blas.NoTrans {
		lda = s.m
	}
	if s.tB != blas.NoTrans {
		ldb = s.k
	}
	be.Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n) // warm up
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		be.Sgemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n)
	}
	flop := 2 * float64(s.m) * float64(s.n) * float64(s.k) * float64(b.N)
	b.ReportMetric(flop/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
		// GFLOP per CPU-second: per core, whatever else runs on the machine.
		b.ReportMetric(flop/cpu/1e9, "GFLOP/cpu-s")
	}
}

// BenchmarkSgemm times the forward products of the small transformer
// (B·T = 64·37 rows; d = 64 and 256-wide MLP; d = 192 and 768-wide MLP).
func BenchmarkSgemm(b *testing.B) {
	shapes := []benchShape{
		{blas.NoTrans, blas.NoTrans, 64 * 37, 64, 64},
		{blas.NoTrans, blas.NoTrans, 64 * 37, 256, 64},
		{blas.NoTrans, blas.NoTrans, 256 * 37, 192, 192},
		{blas.NoTrans, blas.NoTrans, 256 * 37, 768, 192},
	}
	for _, be := range benchBackends(b) {
		for _, s := range shapes {
			b.Run(be.name+"/"+s.String(), func(b *testing.B) {
				if be.err != nil {
					b.Skipf("library absent: %v", be.err)
				}
				benchSgemm(b, be.b, s)
			})
		}
	}
}

// BenchmarkSgemmBackward times the backward products of the same layers:
// dX = dY·Wᵀ (NT) and dW = Xᵀ·dY (TN, long k, small C).
func BenchmarkSgemmBackward(b *testing.B) {
	shapes := []benchShape{
		{blas.NoTrans, blas.Trans, 64 * 37, 64, 256},
		{blas.Trans, blas.NoTrans, 64, 256, 64 * 37},
		{blas.NoTrans, blas.Trans, 256 * 37, 192, 768},
		{blas.Trans, blas.NoTrans, 192, 768, 256 * 37},
	}
	for _, be := range benchBackends(b) {
		for _, s := range shapes {
			b.Run(be.name+"/"+s.String(), func(b *testing.B) {
				if be.err != nil {
					b.Skipf("library absent: %v", be.err)
				}
				benchSgemm(b, be.b, s)
			})
		}
	}
}

// BenchmarkSgemmSmall compares OpenBLAS on one goroutine with the same
// products always split over two, to place Parallel's threshold.
func BenchmarkSgemmSmall(b *testing.B) {
	ob, err := Open("openblas")
	if err != nil {
		b.Skipf("library absent: %v", err)
	}
	for _, sz := range []int{64, 96, 128, 160, 192, 256} {
		for _, be := range []benchBackend{
			{"openblas", ob, nil},
			{"split-openblas-2-always", &parallel{b: ob, workers: 2}, nil},
			{"parallel-openblas-2", Parallel(ob, 2), nil},
		} {
			s := benchShape{blas.NoTrans, blas.NoTrans, sz, sz, sz}
			b.Run(fmt.Sprintf("%s/%d", be.name, sz), func(b *testing.B) { benchSgemm(b, be.b, s) })
		}
	}
}
