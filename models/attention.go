package models

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
)

// attnKernel is fused causal multi-head self-attention over N sequences of T tokens:
// for each sequence and head, P = softmax(causal(Q·Kᵀ/√hd)), O = mask_h · P·V.
// Inputs q, k, v are (N·T)×d with head h in columns h·hd..(h+1)·hd. The attention weights P
// are kept for the backward pass and for probes.
type attnKernel[T Float] struct {
	be    gemm.Backend
	p     pool
	t     int
	heads int
	mask  []float64 // per-head multiplier, owned by the model (1 = on, 0 = ablated)
	probs []T       // N·H·T·T attention weights of the last forward pass
	dp    [][]T     // per-worker T×T scratch
}

func (k *attnKernel[T]) name() string      { return "CausalAttention" }
func (k *attnKernel[T]) diff(n int) []bool { return []bool{true, true, true} }
func (k *attnKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	m, d := rows2(in[0])
	for i := 1; i < 3; i++ {
		if !in[i].Eq(in[0]) {
			return nil, fmt.Errorf("input %d shape %v differs from q %v", i, in[i], in[0])
		}
	}
	if m%k.t != 0 || d%k.heads != 0 {
		return nil, fmt.Errorf("shape %v does not split into length %d and %d heads", in[0], k.t, k.heads)
	}
	return tensor.Shape{m, d}, nil
}

func (k *attnKernel[T]) scratch() {
	if k.dp == nil {
		k.dp = newScratch[T](k.p.workers, k.t*k.t)
	}
}

func (k *attnKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	q, kk, v, o := data[T](in[0]), data[T](in[1]), data[T](in[2]), data[T](out)
	m, d := rows2(in[0].Shape())
	n, t, h := m/k.t, k.t, k.heads
	hd := d / h
	if need := n * h * t * t; cap(k.probs) < need {
		k.probs = make([]T, need)
	} else {
		k.probs = k.probs[:need]
	}
	scale := T(1 / math.Sqrt(float64(hd)))
	k.p.each(n*h, func(_ int, item int) {
		b, hh := item/h, item%h
		off := b*t*d + hh*hd
		oh := o[off:]
		mh := T(k.mask[hh])
		pm := k.probs[item*t*t : (item+1)*t*t]
		if mh == 0 {
			zero(pm)
			for i := 0; i < t; i++ {
				zero(oh[i*d : i*d+hd])
			}
			return
		}
		mm(k.be, false, true, t, t, hd, scale, q[off:], d, kk[off:], d, 0, pm, t)
		for i := 0; i < t; i++ {
			row := pm[i*t : (i+1)*t]
			softmaxInPlace(row[:i+1])
			zero(row[i+1:])
		}
		mm(k.be, false, false, t, hd, t, mh, pm, t, v[off:], d, 0, oh, d)
	})
	return 0
}

func (k *attnKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	q, kk, v, g := data[T](in[0]), data[T](in[1]), data[T](in[2]), data[T](gout)
	dq, dk, dv := data[T](gin[0]), data[T](gin[1]), data[T](gin[2])
	m, d := rows2(in[0].Shape())
	n, t, h := m/k.t, k.t, k.heads
	hd := d / h
	scale := T(1 / math.Sqrt(float64(hd)))
	k.scratch()
	k.p.each(n*h, func(w int, item int) {
		b, hh := item/h, item%h
		off := b*t*d + hh*hd
		mh := T(k.mask[hh])
		if mh == 0 {
			for i := 0; i < t; i++ {
				r := off + i*d
				zero(dq[r : r+hd])
				zero(dk[r : r+hd])
				zero(dv[r : r+hd])
			}
			return
		}
		pm := k.probs[item*t*t : (item+1)*t*t]
		dp := k.dp[w]
		mm(k.be, false, true, t, t, hd, mh, g[off:], d, v[off:], d, 0, dp, t)
		mm(k.be, true, false, t, hd, t, mh, pm, t, g[off:], d, 0, dv[off:], d)
		for i := 0; i < t; i++ {
			pr, dr := pm[i*t:i*t+i+1], dp[i*t:(i+1)*t]
			var s T
			for j, pv := range pr {
				s += pv * dr[j]
			}
			for j, pv := range pr {
				dr[j] = pv * (dr[j] - s)
			}
			zero(dr[i+1:])
		}
		mm(k.be, false, false, t, hd, t, scale, dp, t, kk[off:], d, 0, dq[off:], d)
		mm(k.be, true, false, t, hd, t, scale, dp, t, q[off:], d, 0, dk[off:], d)
	})
}
