package models

import (
	"fmt"

	"gorgonia.org/tensor"

	"windtunnel/backends/par"
)

// ceKernel is the mean softmax cross-entropy over R scored rows of logits R×O. With hard
// targets, row r's target is output index off+tgt[r]; with soft targets, row r's target
// distribution puts soft[r·C+c] on output index off+c. The softmax probabilities are kept
// for the backward pass.
type ceKernel[T Float] struct {
	p    par.Pool
	off  int
	c    int
	tgt  *[]int
	soft *[]float64 // nil or empty: hard targets
	prob []T
	loss []float64
}

func (k *ceKernel[T]) name() string      { return "CrossEntropy" }
func (k *ceKernel[T]) diff(n int) []bool { return []bool{true} }
func (k *ceKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	if _, o := rows2(in[0]); o < k.off+k.c {
		return nil, fmt.Errorf("logits width %d < class offset %d + classes %d", o, k.off, k.c)
	}
	return tensor.ScalarShape(), nil
}

func (k *ceKernel[T]) softTargets() bool { return k.soft != nil && len(*k.soft) > 0 }

func (k *ceKernel[T]) forward(in []*tensor.Dense, _ *tensor.Dense) float64 {
	x := data[T](in[0])
	r, o := rows2(in[0].Shape())
	if cap(k.prob) < len(x) {
		k.prob = make([]T, len(x))
	}
	k.prob = k.prob[:len(x)]
	if cap(k.loss) < r {
		k.loss = make([]float64, r)
	}
	k.loss = k.loss[:r]
	soft := k.softTargets()
	k.p.Rows(r, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row, pr := x[i*o:(i+1)*o], k.prob[i*o:(i+1)*o]
			copy(pr, row)
			mx, lse := softmaxInPlace(pr)
			if soft {
				l := 0.0
				for c, t := range (*k.soft)[i*k.c : (i+1)*k.c] {
					if t > 0 {
						l -= t * float64(row[k.off+c]-mx-lse)
					}
				}
				k.loss[i] = l
			} else {
				k.loss[i] = -float64(row[k.off+(*k.tgt)[i]] - mx - lse)
			}
		}
	})
	s := 0.0
	for _, l := range k.loss {
		s += l
	}
	return s / float64(r)
}

func (k *ceKernel[T]) backward(in []*tensor.Dense, _, _ *tensor.Dense, gs float64, gin []*tensor.Dense) {
	dx := data[T](gin[0])
	r, o := rows2(in[0].Shape())
	scale := T(gs / float64(r))
	soft := k.softTargets()
	for i := 0; i < r; i++ {
		dr, pr := dx[i*o:(i+1)*o], k.prob[i*o:(i+1)*o]
		for j, p := range pr {
			dr[j] = scale * p
		}
		if soft {
			for c, t := range (*k.soft)[i*k.c : (i+1)*k.c] {
				dr[k.off+c] -= scale * T(t)
			}
		} else {
			dr[k.off+(*k.tgt)[i]] -= scale
		}
	}
}

// layerNormKernel is LayerNorm with learned scale and shift: y = (x−μ)/σ · g + b, with
// σ = sqrt(var + eps).
type layerNormKernel[T Float] struct {
	eps  T
	p    par.Pool
	mu   []T
	rstd []T
	part [][]T
}

func (k *layerNormKernel[T]) name() string      { return "LayerNorm" }
func (k *layerNormKernel[T]) diff(n int) []bool { return []bool{true, true, true} }
func (k *layerNormKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	m, d := rows2(in[0])
	for i := 1; i < 3; i++ {
		if r, c := rows2(in[i]); r != 1 || c != d {
			return nil, fmt.Errorf("parameter %d shape %v does not fit width %d", i, in[i], d)
		}
	}
	return tensor.Shape{m, d}, nil
}

func (k *layerNormKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	x, g, b, y := data[T](in[0]), data[T](in[1]), data[T](in[2]), data[T](out)
	d := len(g)
	m := len(x) / d
	if cap(k.mu) < m {
		k.mu, k.rstd = make([]T, m), make([]T, m)
	}
	k.mu, k.rstd = k.mu[:m], k.rstd[:m]
	k.p.Rows(m, 64, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, yr := x[r*d:(r+1)*d], y[r*d:(r+1)*d]
			var s T
			for _, v := range xr {
				s += v
			}
			mu := s / T(d)
			var vs T
			for _, v := range xr {
				vs += (v - mu) * (v - mu)
			}
			rs := 1 / sqrtT(vs/T(d)+k.eps)
			k.mu[r], k.rstd[r] = mu, rs
			for j, v := range xr {
				yr[j] = (v-mu)*rs*g[j] + b[j]
			}
		}
	})
	return 0
}

func (k *layerNormKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	x, g, dy := data[T](in[0]), data[T](in[1]), data[T](gout)
	dx, dg, db := data[T](gin[0]), data[T](gin[1]), data[T](gin[2])
	d := len(g)
	m := len(x) / d
	if k.part == nil {
		k.part = newScratch[T](k.p.Workers, 2*d)
	}
	for w := range k.part {
		zero(k.part[w])
	}
	k.p.Blocks(m, 64, func(w, lo, hi int) {
		acc := k.part[w]
		for r := lo; r < hi; r++ {
			xr, dyr, dxr := x[r*d:(r+1)*d], dy[r*d:(r+1)*d], dx[r*d:(r+1)*d]
			mu, rs := k.mu[r], k.rstd[r]
			var s1, s2 T
			for j, v := range xr {
				xh := (v - mu) * rs
				gh := dyr[j] * g[j]
				s1 += gh
				s2 += gh * xh
				acc[j] += dyr[j] * xh
				acc[d+j] += dyr[j]
			}
			s1 /= T(d)
			s2 /= T(d)
			for j, v := range xr {
				xh := (v - mu) * rs
				dxr[j] = rs * (dyr[j]*g[j] - s1 - xh*s2)
			}
		}
	})
	zero(dg)
	zero(db)
	for w := range k.part {
		for j := 0; j < d; j++ {
			dg[j] += k.part[w][j]
			db[j] += k.part[w][d+j]
		}
	}
}
