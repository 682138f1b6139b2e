package models

import (
	"fmt"

	"gorgonia.org/tensor"

	"windtunnel/backends/par"
)

// convKernel is Mamba's causal depthwise convolution over time followed by SiLU:
// y[n,t,e] = silu(b[e] + Σ_{j<K} w[j,e]·u[n, t−K+1+j, e]), with u zero before the
// sequence starts. Inputs: u (N·T)×E, w K×E, b 1×E; output (N·T)×E.
type convKernel[T Float] struct {
	p    par.Pool
	t    int
	pre  []T // (N·T)×E: the convolution before SiLU
	sg   []T // (N·T)×E: sigmoid(pre)
	dpre []T
	part []T // N×(K+1)×E: per-sequence dw and db, summed in a fixed order
}

func (k *convKernel[T]) name() string      { return "CausalConv" }
func (k *convKernel[T]) diff(n int) []bool { return []bool{true, true, true} }
func (k *convKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	m, e := rows2(in[0])
	if k.t < 1 || m%k.t != 0 {
		return nil, fmt.Errorf("input rows %d not a multiple of length %d", m, k.t)
	}
	if r, c := rows2(in[1]); r < 1 || c != e {
		return nil, fmt.Errorf("filter %v does not fit width %d", in[1], e)
	}
	if r, c := rows2(in[2]); r != 1 || c != e {
		return nil, fmt.Errorf("bias %v does not fit width %d", in[2], e)
	}
	return tensor.Shape{m, e}, nil
}

func (k *convKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	u, w, b, y := data[T](in[0]), data[T](in[1]), data[T](in[2]), data[T](out)
	m, e := rows2(in[0].Shape())
	K := len(w) / e
	L := k.t
	k.pre, k.sg = grow(k.pre, m*e), grow(k.sg, m*e)
	k.p.Rows(m/L, 1, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			for s := 0; s < L; s++ {
				r := q*L + s
				pr := k.pre[r*e : (r+1)*e]
				copy(pr, b)
				for j := max(0, K-1-s); j < K; j++ {
					mulAddArr(pr, w[j*e:(j+1)*e], u[(r-K+1+j)*e:][:e])
				}
				sr, yr := k.sg[r*e:(r+1)*e], y[r*e:(r+1)*e]
				sigmoidArr(sr, pr)
				mulArr(yr, pr, sr)
			}
		}
	})
	return 0
}

func (k *convKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	u, w, dy := data[T](in[0]), data[T](in[1]), data[T](gout)
	du, dw, db := data[T](gin[0]), data[T](gin[1]), data[T](gin[2])
	m, e := rows2(in[0].Shape())
	K := len(w) / e
	L, n := k.t, m/k.t
	k.dpre = grow(k.dpre, m*e)
	k.part = grow(k.part, n*(K+1)*e)
	k.p.Rows(n, 1, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			acc := k.part[q*(K+1)*e : (q+1)*(K+1)*e]
			zero(acc)
			zero(du[q*L*e : (q+1)*L*e])
			for s := 0; s < L; s++ {
				r := q*L + s
				dp, pr, sr, dyr := k.dpre[r*e:(r+1)*e], k.pre[r*e:(r+1)*e], k.sg[r*e:(r+1)*e], dy[r*e:(r+1)*e]
				siluBackArr(dp, dyr, pr, sr)
				addArr(acc[K*e:(K+1)*e], dp)
				for j := max(0, K-1-s); j < K; j++ {
					src := (r - K + 1 + j) * e
					mulAddArr(acc[j*e:(j+1)*e], dp, u[src:src+e])
					mulAddArr(du[src:src+e], dp, w[j*e:(j+1)*e])
				}
			}
		}
	})
	zero(dw)
	zero(db)
	k.p.Rows((K+1)*e, 64, func(lo, hi int) {
		for q := 0; q < n; q++ {
			acc := k.part[q*(K+1)*e:]
			for i := lo; i < hi; i++ {
				if i < K*e {
					dw[i] += acc[i]
				} else {
					db[i-K*e] += acc[i]
				}
			}
		}
	})
}
