package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestSplitByKMatchesGonum: products split along k (weight-gradient shapes) give gonum's
// result for every transpose pair, padded leading dimensions, β ∈ {0, 1, −0.5}, and the same
// bits on every call (the blocks are summed in block order, whatever goroutine computed them).
func TestSplitByKMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ts := []blas.Transpose{blas.NoTrans, blas.Trans}
	ref := gonum.Implementation{}
	p := &parallel{b: Gonum(), workers: 3}
	for _, shape := range [][3]int{{64, 48, 5000}, {7, 3, 997}, {1, 1, 100}, {5, 4, 23}} {
		m, n, k := shape[0], shape[1], shape[2]
		if !splitByK(m, n, k) {
			t.Fatalf("%dx%dx%d is not split along k", m, n, k)
		}
		for _, tA := range ts {
			for _, tB := range ts {
				for _, beta := range []float64{0, 1, -0.5} {
					tc := gemmCase{tA: tA, tB: tB, m: m, n: n, k: k, padA: 1, padB: 2, padC: 3, alpha: 0.5, beta: beta}
					t.Run(fmt.Sprintf("%c%c/%dx%dx%d/beta%g", tA, tB, m, n, k, beta), func(t *testing.T) {
						o32, o64 := makeOperands[float32](tc, rng), makeOperands[float64](tc, rng)
						want32, want64 := o32.clone(), o64.clone()
						ref.Sgemm(tA, tB, m, n, k, 0.5, o32.a, o32.lda, o32.b, o32.ldb, float32(beta), want32.c, o32.ldc)
						ref.Dgemm(tA, tB, m, n, k, 0.5, o64.a, o64.lda, o64.b, o64.ldb, beta, want64.c, o64.ldc)
						got32, got64, again := o32.clone(), o64.clone(), o32.clone()
						p.Sgemm(tA, tB, m, n, k, 0.5, o32.a, o32.lda, o32.b, o32.ldb, float32(beta), got32.c, o32.ldc)
						p.Dgemm(tA, tB, m, n, k, 0.5, o64.a, o64.lda, o64.b, o64.ldb, beta, got64.c, o64.ldc)
						p.Sgemm(tA, tB, m, n, k, 0.5, o32.a, o32.lda, o32.b, o32.ldb, float32(beta), again.c, o32.ldc)
						compare(t, tc, got32.c, want32.c, o32.ldc, tol32)
						compare(t, tc, got64.c, want64.c, o64.ldc, tol64)
						for i := range got32.c {
							if got32.c[i] != again.c[i] {
								t.Fatalf("element %d: %v then %v on the same inputs", i, got32.c[i], again.c[i])
							}
						}
					})
				}
			}
		}
	}
}

// TestSplitByKAllocatesNothing: a steady stream of k-split products reuses its partial buffers.
func TestSplitByKAllocatesNothing(t *testing.T) {
	p := &parallel{b: Gonum(), workers: 2}
	m, n, k := 16, 16, 4096
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	p.Sgemm(blas.Trans, blas.NoTrans, m, n, k, 1, a, m, b, n, 0, c, n)
	allocs := testing.AllocsPerRun(20, func() {
		p.Sgemm(blas.Trans, blas.NoTrans, m, n, k, 1, a, m, b, n, 0, c, n)
	})
	if allocs > 8 {
		t.Errorf("%v allocations a product, want the partial buffers reused", allocs)
	}
}
