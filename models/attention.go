package models

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
)

// attnKernel is fused causal multi-head self-attention over N sequences of T tokens:
// for each sequence and head, P = softmax(causal(Q·Kᵀ/√hd)), O = mask_h · P·V.
// Inputs q, k, v are (N·T)×d with head h in columns h·hd..(h+1)·hd. The attention weights P
// are kept for the backward pass and for probes.
type attnKernel[T Float] struct {
	be    gemm.Backend
	p     par.Pool
	t     int
	heads int
	mask  []float64 // per-head multiplier, owned by the model (1 = on, 0 = ablated)
	probs []T       // N·H·T·T attention weights of the last forward pass
	dp    [][]T     // per-worker T×T scratch
	tr    [][]T     // per-worker hd×T scratch (Kᵀ or Vᵀ) for the small-product path
	blas  bool      // run every product through be even where smm could (benchmarks)
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

func (k *attnKernel[T]) scratch(hd int) {
	if k.dp == nil {
		k.dp = newScratch[T](k.p.Workers, k.t*k.t)
	}
	if len(k.tr) == 0 || len(k.tr[0]) < hd*k.t {
		k.tr = newScratch[T](k.p.Workers, hd*k.t)
	}
}

// small reports whether the products run on the float32 assembly kernels (smm) instead of
// the BLAS backend.
func (k *attnKernel[T]) small() bool { return is32[T]() && haveAVX2 && !k.blas }

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
	k.scratch(hd)
	small := k.small()
	k.p.Each(n*h, func(w int, item int) {
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
		if small {
			// Only the causal triangle: S = scale·Q·Kᵀ with Kᵀ copied out, then P·V over the
			// non-zero prefix of each row block.
			kt := as32(k.tr[w][:hd*t])
			transpose32(kt, as32(kk[off:]), d, t, hd)
			smm(triCols, false, t, t, hd, float32(scale), as32(q[off:]), d, kt, t, as32(pm), t)
		} else {
			mm(k.be, false, true, t, t, hd, scale, q[off:], d, kk[off:], d, 0, pm, t)
		}
		for i := 0; i < t; i++ {
			row := pm[i*t : (i+1)*t]
			if small {
				softmaxRow(&as32(row)[0], i+1)
			} else {
				softmaxInPlace(row[:i+1])
			}
			zero(row[i+1:])
		}
		if small {
			smm(triLower, false, t, hd, t, float32(mh), as32(pm), t, as32(v[off:]), d, as32(oh), d)
		} else {
			mm(k.be, false, false, t, hd, t, mh, pm, t, v[off:], d, 0, oh, d)
		}
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
	k.scratch(hd)
	small := k.small()
	k.p.Each(n*h, func(w int, item int) {
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
		if small {
			vt := as32(k.tr[w][:hd*t])
			transpose32(vt, as32(v[off:]), d, t, hd)
			smm(triCols, false, t, t, hd, float32(mh), as32(g[off:]), d, vt, t, as32(dp), t)
			smm(triUpper, true, t, hd, t, float32(mh), as32(pm), t, as32(g[off:]), d, as32(dv[off:]), d)
		} else {
			mm(k.be, false, true, t, t, hd, mh, g[off:], d, v[off:], d, 0, dp, t)
			mm(k.be, true, false, t, hd, t, mh, pm, t, g[off:], d, 0, dv[off:], d)
		}
		for i := 0; i < t; i++ {
			pr, dr := pm[i*t:i*t+i+1], dp[i*t:(i+1)*t]
			if small {
				softmaxBack(&as32(pr)[0], &as32(dr)[0], i+1)
				zero(dr[i+1:])
				continue
			}
			softmaxBackGo(pr, dr[:i+1])
			zero(dr[i+1:])
		}
		if small {
			smm(triLower, false, t, hd, t, float32(scale), as32(dp), t, as32(kk[off:]), d, as32(dq[off:]), d)
			smm(triUpper, true, t, hd, t, float32(scale), as32(dp), t, as32(q[off:]), d, as32(dk[off:]), d)
			return
		}
		mm(k.be, false, false, t, hd, t, scale, dp, t, kk[off:], d, 0, dq[off:], d)
		mm(k.be, true, false, t, hd, t, scale, dp, t, q[off:], d, 0, dk[off:], d)
	})
}
