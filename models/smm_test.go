package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
)

// naiveMM is the reference for smm, in float64.
func naiveMM(mode tri, transA bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				av := a[i*lda+p]
				if transA {
					av = a[p*lda+i]
				}
				s += float64(av) * float64(b[p*ldb+j])
			}
			c[i*n+j] = float64(alpha) * s
		}
	}
	return c
}

// TestSmm compares the AVX2 small products with a float64 loop over shapes around the
// kernels' 4-row and 16-column blocks, with both layouts of A, and for the causal modes on
// triangular A (zero where the mode skips), only where the mode defines C.
func TestSmm(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mode := range []tri{triFull, triCols, triLower, triUpper} {
		for _, transA := range []bool{false, true} {
			for _, m := range []int{1, 3, 4, 5, 8, 37} {
				for _, n := range []int{1, 7, 8, 15, 16, 17, 32, 37} {
					for _, k := range []int{1, 2, 3, 16, 37} {
						if (mode == triLower || mode == triUpper) && k != m {
							continue
						}
						name := fmt.Sprintf("mode%d/t%v/%dx%dx%d", mode, transA, m, n, k)
						lda := k + 3
						if transA {
							lda = m + 2
						}
						ldb, ldc := n+5, n+1
						ar := k
						if transA {
							ar = m
						}
						a := make([]float32, (max(m, k)-1)*lda+ar)
						b := make([]float32, (k-1)*ldb+n)
						for i := range a {
							a[i] = float32(rng.NormFloat64())
						}
						for i := range b {
							b[i] = float32(rng.NormFloat64())
						}
						// Triangular A for the causal modes (element (i, p) of op(A)).
						for i := 0; i < m; i++ {
							for p := 0; p < k; p++ {
								idx := i*lda + p
								if transA {
									idx = p*lda + i
								}
								if (mode == triLower && p > i) || (mode == triUpper && p < i) {
									a[idx] = 0
								}
							}
						}
						c := make([]float32, (m-1)*ldc+n+1)
						const sentinel = 12345
						for i := range c {
							c[i] = sentinel
						}
						smm(mode, transA, m, n, k, 0.7, a, lda, b, ldb, c, ldc)
						want := naiveMM(mode, transA, m, n, k, 0.7, a, lda, b, ldb)
						for i := 0; i < m; i++ {
							for j := 0; j < n+1; j++ {
								got := c[i*ldc+j]
								defined := j < n && (mode != triCols || j <= i)
								if j >= n || (mode == triCols && j >= (i/4)*4+4) {
									if got != sentinel {
										t.Fatalf("%s: c[%d,%d] = %g written outside the product", name, i, j, got)
									}
									continue
								}
								if !defined {
									continue
								}
								if e := math.Abs(float64(got) - want[i*n+j]); e > 1e-5*(1+math.Abs(want[i*n+j]))*math.Sqrt(float64(k)) {
									t.Fatalf("%s: c[%d,%d] = %g, want %g", name, i, j, got, want[i*n+j])
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestAttentionSmallVsBLAS runs the float32 attention kernel at the trainer's sizes (T=37,
// head dimensions 16 and 32, one head ablated) on the small-product path and on the BLAS
// path and compares the outputs, the attention weights and every input gradient.
func TestAttentionSmallVsBLAS(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2/FMA")
	}
	be := gemm.Gonum()
	for _, sz := range []struct{ n, t, d, h int }{{3, 37, 64, 4}, {2, 37, 192, 6}, {2, 5, 12, 2}} {
		rng := rand.New(rand.NewPCG(9, 10))
		m := sz.n * sz.t
		in := []*tensor.Dense{randDense32(rng, m, 3*sz.d)}
		gout := randDense32(rng, m, sz.d)
		mask := make([]float64, sz.h)
		for i := range mask {
			mask[i] = 1
		}
		mask[1] = 0
		type res struct {
			out, probs []float32
			gin        [][]float32
		}
		run := func(blas bool) res {
			k := &attnKernel[float32]{be: be, p: par.Pool{Workers: 2}, t: sz.t, heads: sz.h, mask: mask, blas: blas}
			out := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(m, sz.d))
			gin := []*tensor.Dense{tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(m, 3*sz.d))}
			k.forward(in, out)
			k.backward(in, out, gout, 0, gin)
			r := res{out: out.Float32s(), probs: append([]float32(nil), k.probs...)}
			for _, g := range gin {
				r.gin = append(r.gin, g.Float32s())
			}
			return r
		}
		want, got := run(true), run(false)
		cmp := func(what string, a, b []float32) {
			worst := 0.0
			for i := range a {
				worst = math.Max(worst, math.Abs(float64(a[i]-b[i]))/(1+math.Abs(float64(b[i]))))
			}
			if worst > 2e-6 {
				t.Errorf("%v: %s differs from the BLAS path by %.3g", sz, what, worst)
			}
			t.Logf("%v: %s within %.2g", sz, what, worst)
		}
		cmp("output", got.out, want.out)
		cmp("attention weights", got.probs, want.probs)
		for i := range got.gin {
			cmp(fmt.Sprintf("gradient %d", i), got.gin[i], want.gin[i])
		}
	}
}

// TestTranspose32 checks the transposition for row and column counts around its 8×8 blocks.
func TestTranspose32(t *testing.T) {
	for _, r := range []int{1, 3, 4, 5, 8, 9, 37} {
		for _, c := range []int{1, 12, 16, 32} {
			lda := c + 3
			a := make([]float32, (r-1)*lda+c)
			for i := range a {
				a[i] = float32(i)
			}
			dst := make([]float32, r*c)
			transpose32(dst, a, lda, r, c)
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if dst[j*r+i] != a[i*lda+j] {
						t.Fatalf("%dx%d: dst[%d,%d] = %g, want %g", r, c, j, i, dst[j*r+i], a[i*lda+j])
					}
				}
			}
		}
	}
}
