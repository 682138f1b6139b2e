package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/fpu"
)

// alwaysSplit returns the Go backend with kernel k on w workers, splitting every product
// however small.
func alwaysSplit(k kernel, w int) *goBackend {
	g := newGoBackend(k, w)
	g.minWork = 0
	return g
}

// goBackends lists the Go backend with each micro-kernel this CPU runs: on one goroutine,
// through Parallel, and splitting every product over three workers.
func goBackends() []namedBackend {
	var list []namedBackend
	for _, k := range kernels() {
		list = append(list,
			namedBackend{"go/" + k.name, newGoBackend(k, 1), nil},
			namedBackend{"parallel-go-2/" + k.name, Parallel(newGoBackend(k, 1), 2), nil},
			namedBackend{"split-go-3-always/" + k.name, alwaysSplit(k, 3), nil},
		)
		if k.rows != nil {
			p := alwaysSplit(k, 3)
			p.packAll = true
			list = append(list, namedBackend{"split-go-3-always-packed/" + k.name, p, nil})
		}
		// B packed one k block at a time.
		short := alwaysSplit(k, 2)
		short.maxPacked = 1
		list = append(list, namedBackend{"split-go-2-always-short-pack/" + k.name, short, nil})
	}
	return list
}

// TestGoBitIdenticalAcrossWorkers: the Go backend's float32 products are bit-identical for
// 1, 2, 3 and 5 workers (every element computed by the same operations wherever it runs),
// from one call to the next (the scratch panels are reused), with A packed or read in
// place and with B packed whole or a k block at a time, for every transpose pair, with k over several blocks, edge tiles and beta ∉ {0, 1}.
func TestGoBitIdenticalAcrossWorkers(t *testing.T) {
	for _, k := range kernels() {
		for _, tc := range []gemmCase{
			{tA: blas.NoTrans, tB: blas.NoTrans, m: 203, n: 77, k: 600, padA: 1, padB: 2, padC: 3, alpha: 1.5, beta: 0.25},
			{tA: blas.NoTrans, tB: blas.Trans, m: 130, n: 190, k: 300, alpha: 1, beta: 0},
			{tA: blas.Trans, tB: blas.NoTrans, m: 40, n: 100, k: 1100, padA: 2, alpha: -1, beta: 1},
			{tA: blas.Trans, tB: blas.Trans, m: 17, n: 33, k: 257, padB: 1, padC: 1, alpha: 0.5, beta: -2},
		} {
			name := fmt.Sprintf("%s/%c%c/%dx%dx%d", k.name, tc.tA, tc.tB, tc.m, tc.n, tc.k)
			t.Run(name, func(t *testing.T) {
				o := makeOperands[float32](tc, rand.New(rand.NewPCG(5, 6)))
				var first []float32
				for i, w := range []int{1, 2, 3, 5, 1, 2, 3} {
					got := o.clone()
					g := alwaysSplit(k, w)
					g.packAll = i == 5
					if i == 6 {
						g.maxPacked = 1 // B packed a k block at a time
					}
					g.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o.a, o.lda, o.b, o.ldb, float32(tc.beta), got.c, o.ldc)
					if first == nil {
						first = got.c[:cap(got.c)]
						continue
					}
					for i, v := range got.c[:cap(got.c)] {
						if v != first[i] {
							t.Fatalf("%d workers: element %d = %v, want %v (1 worker)", w, i, v, first[i])
						}
					}
				}
			})
		}
	}
}

// TestGoWideProduct: a product wider than maxCols runs in column panels and agrees with
// gonum, for B untransposed and transposed, without touching C outside its view.
func TestGoWideProduct(t *testing.T) {
	for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		tc := gemmCase{tA: blas.NoTrans, tB: tB, m: 13, n: maxCols + 37, k: 20, padB: 3, padC: 5, alpha: 1.5, beta: 0.5}
		t.Run(fmt.Sprintf("%c", tB), func(t *testing.T) {
			o := makeOperands[float32](tc, rand.New(rand.NewPCG(9, 10)))
			want, got := o.clone(), o.clone()
			Gonum().Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1.5, o.a, o.lda, o.b, o.ldb, 0.5, want.c, o.ldc)
			alwaysSplit(bestKernel(), 2).Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1.5, o.a, o.lda, o.b, o.ldb, 0.5, got.c, o.ldc)
			compare(t, tc, got.c, want.c, o.ldc, tol32)
		})
	}
}

// TestPairKernelBitIdentical: a kernel's pair path (two whole tiles side by side as one, the
// AVX-512 kernel) gives the same bits as the same kernel computing every tile alone, with A
// read in place and packed, for every transpose pair, odd and even sliver counts, edge
// rows and columns, beta 0 (C NaN, not read) and beta ∉ {0, 1}, on 1 and 3 workers.
func TestPairKernelBitIdentical(t *testing.T) {
	var ran bool
	for _, k := range kernels() {
		if k.pair == nil {
			continue
		}
		ran = true
		single := k
		single.pair, single.pairRows = nil, nil
		for _, tc := range []gemmCase{
			{tA: blas.NoTrans, tB: blas.NoTrans, m: 203, n: 77, k: 600, padA: 1, padB: 2, padC: 3, alpha: 1.5, beta: 0.25},
			{tA: blas.NoTrans, tB: blas.NoTrans, m: 2368 / 8, n: 64, k: 64, alpha: 1, beta: 1},
			{tA: blas.NoTrans, tB: blas.Trans, m: 130, n: 190, k: 300, alpha: 1, beta: 0, nanC: true},
			{tA: blas.Trans, tB: blas.NoTrans, m: 64, n: 256, k: 1100, padA: 2, alpha: -1, beta: 1},
			{tA: blas.Trans, tB: blas.Trans, m: 17, n: 48, k: 257, padB: 1, padC: 1, alpha: 0.5, beta: -2},
		} {
			for _, w := range []int{1, 3} {
				for _, packAll := range []bool{false, true} {
					name := fmt.Sprintf("%s/%c%c/%dx%dx%d/w%d/packed=%v", k.name, tc.tA, tc.tB, tc.m, tc.n, tc.k, w, packAll)
					t.Run(name, func(t *testing.T) {
						o := makeOperands[float32](tc, rand.New(rand.NewPCG(11, 12)))
						want, got := o.clone(), o.clone()
						ref, pair := alwaysSplit(single, w), alwaysSplit(k, w)
						ref.packAll, pair.packAll = packAll, packAll
						ref.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o.a, o.lda, o.b, o.ldb, float32(tc.beta), want.c, o.ldc)
						pair.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o.a, o.lda, o.b, o.ldb, float32(tc.beta), got.c, o.ldc)
						for i, v := range got.c[:cap(got.c)] {
							if w := want.c[:cap(want.c)][i]; v != w && !(v != v && w != w) {
								t.Fatalf("element %d = %v, want %v (tiles one at a time)", i, v, w)
							}
						}
					})
				}
			}
		}
	}
	if !ran {
		t.Skip("no pair kernel on this CPU")
	}
}

// TestSgemmFlushesSubnormals: the float32 products of the go backend (and OpenBLAS where it
// loads) flush subnormal results to zero, and leave the caller's floating-point mode as it
// was; gonum's products keep them.
func TestSgemmFlushesSubnormals(t *testing.T) {
	const m, n, k = 6, 32, 4
	a := make([]float32, m*k)
	b := make([]float32, k*n)
	for i := range a {
		a[i] = 1e-20
	}
	for i := range b {
		b[i] = 1e-20
	}
	backends := []struct {
		name  string
		be    Backend
		flush bool
	}{{"go", Go(), true}, {"go, 2 workers", newGoBackend(bestKernel(), 2), true}, {"gonum", Gonum(), false}}
	if ob, err := Open("openblas"); err == nil {
		backends = append(backends, struct {
			name  string
			be    Backend
			flush bool
		}{"openblas", ob, true})
	}
	before := fpu.Current()
	for _, tc := range backends {
		c := make([]float32, m*n)
		tc.be.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n)
		for i, v := range c {
			want := float32(0)
			if !tc.flush {
				want = 4e-40 // k · 1e-20², subnormal
			}
			if d := float64(v - want); d > 1e-44 || d < -1e-44 {
				t.Fatalf("%s: c[%d] = %g, want %g", tc.name, i, v, want)
			}
		}
		if fpu.Current().Flushing() != before.Flushing() {
			t.Fatalf("%s: the caller's mode %#x became %#x", tc.name, before, fpu.Current())
		}
	}
}
