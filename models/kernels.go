package models

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
)

// rows2 returns the two dimensions of a 2-D shape.
func rows2(s tensor.Shape) (int, int) {
	if len(s) != 2 {
		return -1, -1
	}
	return s[0], s[1]
}

// colSums adds the column sums of the m×n row-major matrix a into dst (len n), in parallel
// with per-worker partial sums held in scratch.
func colSums[T Float](p par.Pool, scratch [][]T, dst, a []T, m, n int) {
	for w := range scratch {
		zero(scratch[w][:n])
	}
	vec := is32[T]() && haveAVX2 && n > 0
	p.Blocks(m, 256, func(w, lo, hi int) {
		acc := scratch[w][:n]
		for i := lo; i < hi; i++ {
			row := a[i*n : (i+1)*n]
			if vec {
				addVec(&as32(acc)[0], &as32(row)[0], n)
				continue
			}
			for j, v := range row {
				acc[j] += v
			}
		}
	})
	for w := range scratch {
		for j, v := range scratch[w][:n] {
			dst[j] += v
		}
	}
}

func newScratch[T Float](workers, n int) [][]T {
	s := make([][]T, workers)
	for i := range s {
		s[i] = make([]T, n)
	}
	return s
}

// gatherSpec selects, from an N×T grid of rows, the rows at P fixed positions of each
// sequence: output row n·P+p reads input row n·T+pos[p].
type gatherSpec struct {
	t   int
	pos []int
}

func (g *gatherSpec) row(r int) int {
	p := len(g.pos)
	return (r/p)*g.t + g.pos[r%p]
}

// rmsKernel is RMSNorm with a learned scale: y = x / sqrt(mean(x²)+eps) · g, optionally
// applied only to gathered rows.
type rmsKernel[T Float] struct {
	eps    T
	p      par.Pool
	gather *gatherSpec
	r      []T
	part   [][]T
}

func (k *rmsKernel[T]) name() string      { return "RMSNorm" }
func (k *rmsKernel[T]) diff(n int) []bool { return []bool{true, true} }
func (k *rmsKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	m, d := rows2(in[0])
	if _, gd := rows2(in[1]); gd != d || in[1][0] != 1 {
		return nil, fmt.Errorf("scale %v does not fit input %v", in[1], in[0])
	}
	if k.gather != nil {
		if m%k.gather.t != 0 {
			return nil, fmt.Errorf("input rows %d not a multiple of length %d", m, k.gather.t)
		}
		return tensor.Shape{m / k.gather.t * len(k.gather.pos), d}, nil
	}
	return tensor.Shape{m, d}, nil
}

func (k *rmsKernel[T]) src(r int) int {
	if k.gather == nil {
		return r
	}
	return k.gather.row(r)
}

func (k *rmsKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	x, g, y := data[T](in[0]), data[T](in[1]), data[T](out)
	d := len(g)
	rows := len(y) / d
	if cap(k.r) < rows {
		k.r = make([]T, rows)
	}
	k.r = k.r[:rows]
	vec := is32[T]() && haveAVX2 && d > 0
	k.p.Rows(rows, 64, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			s := k.src(r)
			xr, yr := x[s*d:(s+1)*d], y[r*d:(r+1)*d]
			if vec {
				inv := rmsInv(T(sumSq(&as32(xr)[0], d)), d, k.eps)
				k.r[r] = inv
				scaleMul(&as32(yr)[0], &as32(xr)[0], &as32(g)[0], d, float32(inv))
				continue
			}
			var ss T
			for _, v := range xr {
				ss += v * v
			}
			inv := rmsInv(ss, d, k.eps)
			k.r[r] = inv
			for j, v := range xr {
				yr[j] = v * inv * g[j]
			}
		}
	})
	return 0
}

func (k *rmsKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	x, g, dy := data[T](in[0]), data[T](in[1]), data[T](gout)
	dx, dg := data[T](gin[0]), data[T](gin[1])
	d := len(g)
	rows := len(dy) / d
	if k.gather != nil {
		zero(dx)
	}
	if k.part == nil {
		k.part = newScratch[T](k.p.Workers, d)
	}
	for w := range k.part {
		zero(k.part[w])
	}
	vec := is32[T]() && haveAVX2 && d > 0
	k.p.Blocks(rows, 64, func(w, lo, hi int) {
		acc := k.part[w]
		for r := lo; r < hi; r++ {
			s := k.src(r)
			xr, dyr, dxr := x[s*d:(s+1)*d], dy[r*d:(r+1)*d], dx[s*d:(s+1)*d]
			inv := k.r[r]
			if vec {
				dot := T(rmsBackDot(&as32(xr)[0], &as32(dyr)[0], &as32(g)[0], &as32(acc)[0], d, float32(inv)))
				c := inv * inv * inv * dot / T(d)
				rmsBackDx(&as32(dxr)[0], &as32(xr)[0], &as32(dyr)[0], &as32(g)[0], d, float32(inv), float32(c))
				continue
			}
			var dot T
			for j, v := range xr {
				dot += g[j] * dyr[j] * v
				acc[j] += dyr[j] * v * inv
			}
			c := inv * inv * inv * dot / T(d)
			for j, v := range xr {
				dxr[j] = inv*g[j]*dyr[j] - c*v
			}
		}
	})
	zero(dg)
	for w := range k.part {
		for j, v := range k.part[w] {
			dg[j] += v
		}
	}
}

// Activation after a linear map.
type activation int

const (
	actNone    activation = iota
	actGELU               // GELU's tanh form (geluTanh, geluOf)
	actGELUErf            // the exact GELU (geluErf, or geluErfForward's vector kernel): keeps GELU′, not u
)

// linKernel is y = act(x·W + b) + res, where W is in×out (or out×in when transW, as for a
// head tied to an embedding), and the bias, activation and residual are optional. Inputs:
// x, W, then b if bias, then res if res. With a gate (only with res and no activation) the
// output is y = res + g·(x·W + b), g = *gate read at every pass: 1 is the plain layer, 0
// ablates it (zeroes its contribution to the residual stream).
type linKernel[T Float] struct {
	be     gemm.Backend
	p      par.Pool
	transW bool
	bias   bool
	res    bool
	act    activation
	gate   *float64
	pre    []T  // pre-activation u
	th     []T  // tanh(√(2/π)(u+0.044715u³)) (tanh's scalar path) or, exact, GELU′(u): for the backward pass
	vec    bool // the last forward pass ran the vector bias+GELU (tanh: th is not saved)
	// dpre is the backward pass's scratch for the pre-activation's gradient: the model's
	// one (apply points it there; backward passes run one at a time), or the kernel's own.
	dpre *[]T
	part [][]T
}

// gradScratch is the backward pass's scratch of n values.
func (k *linKernel[T]) gradScratch(n int) []T {
	if k.dpre == nil {
		k.dpre = new([]T)
	}
	if cap(*k.dpre) < n {
		*k.dpre = make([]T, n)
	}
	return (*k.dpre)[:n]
}

// scale is the gate's value, 1 without a gate.
func (k *linKernel[T]) scale() T {
	if k.gate == nil {
		return 1
	}
	return T(*k.gate)
}

func (k *linKernel[T]) name() string {
	return fmt.Sprintf("Linear{t=%v,b=%v,r=%v,a=%d}", k.transW, k.bias, k.res, k.act)
}
func (k *linKernel[T]) diff(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}
func (k *linKernel[T]) dims(in []tensor.Shape) (m, kin, out int, err error) {
	m, kin = rows2(in[0])
	a, b := rows2(in[1])
	if k.transW {
		a, b = b, a
	}
	if a != kin {
		return 0, 0, 0, fmt.Errorf("weight %v does not fit input %v", in[1], in[0])
	}
	return m, kin, b, nil
}
func (k *linKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	m, _, o, err := k.dims(in)
	if err != nil {
		return nil, err
	}
	i := 2
	if k.bias {
		if r, c := rows2(in[i]); r != 1 || c != o {
			return nil, fmt.Errorf("bias %v does not fit output width %d", in[i], o)
		}
		i++
	}
	if k.gate != nil && !k.res {
		return nil, fmt.Errorf("a gate needs a residual input")
	}
	if k.res {
		if k.act != actNone {
			return nil, fmt.Errorf("an activation with a residual input is not supported")
		}
		if r, c := rows2(in[i]); r != m || c != o {
			return nil, fmt.Errorf("residual %v does not fit output %dx%d", in[i], m, o)
		}
	}
	return tensor.Shape{m, o}, nil
}

func (k *linKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	x, w, y := data[T](in[0]), data[T](in[1]), data[T](out)
	m, kin := rows2(in[0].Shape())
	o := len(y) / max(m, 1)
	var beta T
	i := 2
	var b []T
	if k.bias {
		b = data[T](in[i])
		i++
	}
	if k.res {
		copyPar(k.p, y, data[T](in[i]))
		beta = 1
	}
	g := k.scale()
	if g == 0 {
		return 0
	}
	ldw := o
	if k.transW {
		ldw = kin
	}
	mm(k.be, false, k.transW, m, o, kin, g, x, kin, w, ldw, beta, y, o)
	if b == nil && k.act == actNone {
		return 0
	}
	k.vec = k.act != actNone && b != nil && is32[T]() && haveAVX2 && o > 0
	if k.act == actGELU {
		if cap(k.pre) < len(y) {
			k.pre = make([]T, len(y))
		}
		k.pre = k.pre[:len(y)]
	}
	if k.act == actGELUErf || k.act == actGELU && !k.vec {
		if cap(k.th) < len(y) {
			k.th = make([]T, len(y))
		}
		k.th = k.th[:len(y)]
	}
	vec := k.vec
	// A bias alone (gain 1, the unablated layer) is added by the vector kernel: y + 1·b is y + b.
	vecBias := k.act == actNone && b != nil && g == 1 && is32[T]() && haveAVX2 && o > 0
	k.p.Rows(m, 32, func(lo, hi int) {
		if vecBias {
			for r := lo; r < hi; r++ {
				addVec(&as32(y)[r*o], &as32(b)[0], o)
			}
			return
		}
		if vec && k.act == actGELUErf {
			// Bias, the exact GELU and its saved gradient in one vector pass.
			for r := lo; r < hi; r++ {
				geluErfForward(&as32(y)[r*o], &as32(b)[0], &as32(k.th)[r*o], o, float32(g))
			}
			return
		}
		if vec {
			// Bias, GELU and the saved u in one vector pass (the backward pass recomputes
			// the tanh: storing it costs more memory traffic than the arithmetic).
			for r := lo; r < hi; r++ {
				geluForward(&as32(y)[r*o], &as32(b)[0], &as32(k.pre)[r*o], o, float32(g))
			}
			return
		}
		for r := lo; r < hi; r++ {
			yr := y[r*o : (r+1)*o]
			if b != nil {
				for j := range yr {
					yr[j] += g * b[j]
				}
			}
			switch k.act {
			case actGELU:
				pr, tr := k.pre[r*o:(r+1)*o], k.th[r*o:(r+1)*o]
				copy(pr, yr)
				for j, u := range pr {
					t := geluTanh(u)
					tr[j] = t
					yr[j] = geluOf(u, t)
				}
			case actGELUErf:
				tr := k.th[r*o : (r+1)*o]
				for j, u := range yr {
					yr[j], tr[j] = geluErf(u)
				}
			}
		}
	})
	return 0
}

func (k *linKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	x, w, g := data[T](in[0]), data[T](in[1]), data[T](gout)
	m, kin := rows2(in[0].Shape())
	o := len(g) / max(m, 1)
	if k.act != actNone {
		dp := k.gradScratch(len(g))
		k.p.Rows(len(g), 1024, func(lo, hi int) { k.actBackward(dp, g, lo, hi) })
		g = dp
	}
	dx, dw := data[T](gin[0]), data[T](gin[1])
	if s := k.scale(); s != 1 {
		// y = res + s·(x·W + b): every gradient but the residual's is scaled by s.
		dp := k.gradScratch(len(g))
		for j, v := range g {
			dp[j] = s * v
		}
		g = dp
	}
	if k.transW {
		// y = x·Wᵀ, W out×in: dx = g·W, dW = gᵀ·x.
		mm(k.be, false, false, m, kin, o, 1, g, o, w, kin, 0, dx, kin)
		mm(k.be, true, false, o, kin, m, 1, g, o, x, kin, 0, dw, kin)
	} else {
		mm(k.be, false, true, m, kin, o, 1, g, o, w, o, 0, dx, kin)
		mm(k.be, true, false, kin, o, m, 1, x, kin, g, o, 0, dw, o)
	}
	i := 2
	if k.bias {
		db := data[T](gin[i])
		zero(db)
		if k.part == nil {
			k.part = newScratch[T](k.p.Workers, o)
		}
		colSums(k.p, k.part, db, g, m, o)
		i++
	}
	if k.res {
		copyPar(k.p, data[T](gin[i]), data[T](gout))
	}
}

// softmaxInPlace replaces a row by its softmax (one exp per element) and returns the row's
// maximum and log Σ exp(x − max), so log-softmax(x)_j = x_j − max − lse.
func softmaxInPlace[T Float](x []T) (mx, lse T) {
	mx = x[0]
	for _, v := range x[1:] {
		if v > mx {
			mx = v
		}
	}
	var s T
	if is32[T]() && haveAVX2 {
		s = T(expSum(&as32(x)[0], len(x), float32(mx)))
	} else {
		for j, v := range x {
			e := expT(v - mx)
			x[j] = e
			s += e
		}
	}
	inv := 1 / s
	for j := range x {
		x[j] *= inv
	}
	return mx, T(math.Log(float64(s)))
}
