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
// Its one input is (N·T)×3d, the fused projection's output (qkvKernel): queries, keys and
// values side by side, head h in columns h·hd..(h+1)·hd of each; the output is (N·T)×d and
// the input's gradient (N·T)×3d the same way. The attention weights P are kept for the
// backward pass and for probes.
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
func (k *attnKernel[T]) diff(n int) []bool { return []bool{true} }
func (k *attnKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	m, w := rows2(in[0])
	if w%3 != 0 || m%k.t != 0 || (w/3)%k.heads != 0 {
		return nil, fmt.Errorf("shape %v does not split into queries, keys and values, length %d and %d heads", in[0], k.t, k.heads)
	}
	return tensor.Shape{m, w / 3}, nil
}

// split returns the queries, keys and values of a fused (N·T)×3d matrix (each a view from
// its first element on, rows 3d apart) and d.
func split[T Float](qkv []T, w int) (q, k, v []T, d int) {
	d = w / 3
	return qkv, qkv[d:], qkv[2*d:], d
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
	o := data[T](out)
	m, ld := rows2(in[0].Shape())
	q, kk, v, d := split(data[T](in[0]), ld)
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
		off, oo := b*t*ld+hh*hd, b*t*d+hh*hd // in q, k, v (rows ld apart) and in o
		oh := o[oo:]
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
			transpose32(kt, as32(kk[off:]), ld, t, hd)
			smm(triCols, false, t, t, hd, float32(scale), as32(q[off:]), ld, kt, t, as32(pm), t)
		} else {
			mm(k.be, false, true, t, t, hd, scale, q[off:], ld, kk[off:], ld, 0, pm, t)
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
			smm(triLower, false, t, hd, t, float32(mh), as32(pm), t, as32(v[off:]), ld, as32(oh), d)
		} else {
			mm(k.be, false, false, t, hd, t, mh, pm, t, v[off:], ld, 0, oh, d)
		}
	})
	return 0
}

func (k *attnKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	g := data[T](gout)
	m, ld := rows2(in[0].Shape())
	q, kk, v, d := split(data[T](in[0]), ld)
	dq, dk, dv, _ := split(data[T](gin[0]), ld)
	n, t, h := m/k.t, k.t, k.heads
	hd := d / h
	scale := T(1 / math.Sqrt(float64(hd)))
	k.scratch(hd)
	small := k.small()
	k.p.Each(n*h, func(w int, item int) {
		b, hh := item/h, item%h
		off, oo := b*t*ld+hh*hd, b*t*d+hh*hd // in q, k, v and their gradients, and in g
		gh := g[oo:]
		mh := T(k.mask[hh])
		if mh == 0 {
			for i := 0; i < t; i++ {
				r := off + i*ld
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
			transpose32(vt, as32(v[off:]), ld, t, hd)
			smm(triCols, false, t, t, hd, float32(mh), as32(gh), d, vt, t, as32(dp), t)
			smm(triUpper, true, t, hd, t, float32(mh), as32(pm), t, as32(gh), d, as32(dv[off:]), ld)
		} else {
			mm(k.be, false, true, t, t, hd, mh, gh, d, v[off:], ld, 0, dp, t)
			mm(k.be, true, false, t, hd, t, mh, pm, t, gh, d, 0, dv[off:], ld)
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
			smm(triLower, false, t, hd, t, float32(scale), as32(dp), t, as32(kk[off:]), ld, as32(dq[off:]), ld)
			smm(triUpper, true, t, hd, t, float32(scale), as32(dp), t, as32(q[off:]), ld, as32(dk[off:]), ld)
			return
		}
		mm(k.be, false, false, t, hd, t, scale, dp, t, kk[off:], ld, 0, dq[off:], ld)
		mm(k.be, true, false, t, hd, t, scale, dp, t, q[off:], ld, 0, dk[off:], ld)
	})
}

// qkvKernel is the attention's three projections as one product: y = x·[Wq | Wk | Wv], x
// (N·T)×d, each weight d×d, y (N·T)×3d (queries, keys and values side by side, as attnKernel
// reads them). The weights are copied side by side at every forward pass (d×3d values), so
// that the product, its input gradient g·[Wq | Wk | Wv]ᵀ and its weight gradient xᵀ·g are
// one matrix product each.
type qkvKernel[T Float] struct {
	be    gemm.Backend
	w, dw []T // the weights and their gradient side by side, d×3d
}

func (k *qkvKernel[T]) name() string      { return "QKV" }
func (k *qkvKernel[T]) diff(n int) []bool { return []bool{true, true, true, true} }
func (k *qkvKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	m, d := rows2(in[0])
	for i := 1; i < 4; i++ {
		if r, c := rows2(in[i]); r != d || c != d {
			return nil, fmt.Errorf("weight %d shape %v does not fit input %v", i, in[i], in[0])
		}
	}
	return tensor.Shape{m, 3 * d}, nil
}

func (k *qkvKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	x, y := data[T](in[0]), data[T](out)
	m, d := rows2(in[0].Shape())
	if cap(k.w) < 3*d*d {
		k.w, k.dw = make([]T, 3*d*d), make([]T, 3*d*d)
	}
	k.w, k.dw = k.w[:3*d*d], k.dw[:3*d*d]
	for i := 0; i < 3; i++ {
		wi := data[T](in[1+i])
		for r := 0; r < d; r++ {
			copy(k.w[r*3*d+i*d:r*3*d+(i+1)*d], wi[r*d:(r+1)*d])
		}
	}
	mm(k.be, false, false, m, 3*d, d, 1, x, d, k.w, 3*d, 0, y, 3*d)
	return 0
}

func (k *qkvKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	x, g, dx := data[T](in[0]), data[T](gout), data[T](gin[0])
	m, d := rows2(in[0].Shape())
	mm(k.be, false, true, m, d, 3*d, 1, g, 3*d, k.w, 3*d, 0, dx, d)
	mm(k.be, true, false, d, 3*d, m, 1, x, d, g, 3*d, 0, k.dw, 3*d)
	for i := 0; i < 3; i++ {
		dwi := data[T](gin[1+i])
		for r := 0; r < d; r++ {
			copy(dwi[r*d:(r+1)*d], k.dw[r*3*d+i*d:r*3*d+(i+1)*d])
		}
	}
}
