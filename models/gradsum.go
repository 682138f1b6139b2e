package models

import (
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"windtunnel/backends/par"
)

// sumEngine is gorgonia's standard engine with element-wise Add of two equal-shaped dense
// float tensors into a preallocated result, or unsafely into the first operand, split over a
// pool of workers. Gorgonia sums a node's gradient contributions (the residual stream's)
// with Add nodes that run single-threaded on the first operand's engine, some of them in
// place; the tape machine gives every value it holds this engine (G.WithEngine), so those
// sums use every core. Any other Add goes to the standard engine.
type sumEngine struct {
	G.StandardEngine
	p par.Pool
}

// sumMinPer is the fewest elements a worker sums: below two of these a sum stays on the
// caller's goroutine.
const sumMinPer = 1 << 14

// Add computes a + b, in parallel when it can (see sumEngine).
func (e sumEngine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	fo := tensor.ParseFuncOpts(opts...)
	reuse, incr := fo.Reuse(), fo.Incr()
	ad, okA := a.(*tensor.Dense)
	bd, okB := b.(*tensor.Dense)
	if reuse == nil && incr == nil && !fo.Safe() {
		reuse = a // in place: a = a + b
	}
	rd, okR := reuse.(*tensor.Dense)
	if !okA || !okB || !okR || incr != nil || !plainDense(ad) || !plainDense(bd) || !plainDense(rd) ||
		ad.Dtype() != bd.Dtype() || ad.Dtype() != rd.Dtype() || !ad.Shape().Eq(bd.Shape()) || !ad.Shape().Eq(rd.Shape()) {
		return e.StandardEngine.Add(a, b, opts...)
	}
	switch ad.Dtype() {
	case tensor.Float32:
		sumInto(e.p, data[float32](rd), data[float32](ad), data[float32](bd))
	case tensor.Float64:
		sumInto(e.p, data[float64](rd), data[float64](ad), data[float64](bd))
	default:
		return e.StandardEngine.Add(a, b, opts...)
	}
	return rd, nil
}

// plainDense reports whether t is a contiguous, unmasked, directly addressable tensor whose
// backing slice is exactly its elements.
func plainDense(t *tensor.Dense) bool {
	return t.IsNativelyAccessible() && !t.IsMasked() && !t.RequiresIterator() && t.DataSize() == t.Shape().TotalSize()
}

// sumInto sets dst = a + b element-wise, in chunks spread over p's workers; dst may be a or b.
func sumInto[T Float](p par.Pool, dst, a, b []T) {
	p.Rows(len(dst), sumMinPer, func(lo, hi int) {
		d, x, y := dst[lo:hi], a[lo:hi], b[lo:hi]
		if is32[T]() && haveAVX2 && hi > lo {
			switch {
			case &d[0] == &y[0]:
				addVec(&as32(d)[0], &as32(x)[0], hi-lo)
				return
			case &d[0] != &x[0]:
				copy(d, x)
			}
			addVec(&as32(d)[0], &as32(y)[0], hi-lo)
			return
		}
		for i := range d {
			d[i] = x[i] + y[i]
		}
	})
}

// copyPar copies src into dst (equal lengths) in chunks spread over p's workers.
func copyPar[T Float](p par.Pool, dst, src []T) {
	p.Rows(len(dst), sumMinPer, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}
