package timescales

import (
	"fmt"
	"math"
	"math/rand/v2"

	"windtunnel/backends/gemm"
	"windtunnel/models"
)

// The authors' single head: query and key width KeyDim, value width ValueDim, InitScale the
// standard deviation of every initial weight.
const (
	KeyDim    = 10
	ValueDim  = 15
	InitScale = 0.1
)

// Params are the head's four matrices, row-major: W_Q, W_K (Dim×KeyDim), W_V
// (Dim×ValueDim) and W_O (ValueDim×Symbols).
type Params[T models.Float] struct {
	WQ, WK, WV, WO []T
}

// Matrices returns the four in the order Q, K, V, O (the slices are the parameters' own).
func (p Params[T]) Matrices() [4][]T { return [4][]T{p.WQ, p.WK, p.WV, p.WO} }

// NewParams returns zero matrices of the head's sizes.
func NewParams[T models.Float]() Params[T] {
	return Params[T]{WQ: make([]T, Dim*KeyDim), WK: make([]T, Dim*KeyDim),
		WV: make([]T, Dim*ValueDim), WO: make([]T, ValueDim*Symbols)}
}

// InitParams draws seed's initial weights, N(0, InitScale²), in the order W_Q, W_K, W_V,
// W_O (the authors' order; both arms of a seed start from them).
func InitParams[T models.Float](seed uint64) Params[T] {
	rng := rand.New(rand.NewPCG(seed, streamInit))
	p := NewParams[T]()
	for _, m := range p.Matrices() {
		for i := range m {
			m[i] = T(InitScale * rng.NormFloat64())
		}
	}
	return p
}

// Clone returns a copy of p.
func (p Params[T]) Clone() Params[T] {
	c := NewParams[T]()
	for i, m := range c.Matrices() {
		copy(m, p.Matrices()[i])
	}
	return c
}

// block is the number of query rows the head computes at once: their attention rows (block
// × position) stay in cache from the scores through the softmax to the gradient.
const block = 96

// Head computes the single head's mean cross-entropy on one sequence and its gradient:
// Q = X·W_Q, K = X·W_K, V = X·W_V, A = softmax(causal(Q·Kᵀ/√KeyDim)), logits = A·V·W_O;
// no normalisation, residual, MLP or positions. Rows are processed in blocks (of 96), each
// block only up to its last key (the causal triangle), and a block's backward pass runs
// right after its forward, so the N×N attention matrix is never held whole. Not safe for
// concurrent use.
type Head[T models.Float] struct {
	be   gemm.Backend
	x    []T
	y    []int
	n    int
	grad Params[T]
	// Per-sequence activations and their gradients, and per-block scratch.
	q, k, v, dq, dk, dv []T
	o, logits, dlog, do []T
	att, datt           []T // block × n attention rows and their gradients
}

// NewHead returns a head on data (its inputs converted to T), whose products run on be.
func NewHead[T models.Float](be gemm.Backend, d Data) (*Head[T], error) {
	if d.N < 1 || len(d.X) != d.N*Dim || len(d.Y) != d.N {
		return nil, fmt.Errorf("timescales: data of %d rows with %d inputs and %d targets", d.N, len(d.X), len(d.Y))
	}
	for t, y := range d.Y {
		if y < 0 || y >= Symbols {
			return nil, fmt.Errorf("timescales: target %d at position %d, want 0..%d", y, t, Symbols-1)
		}
	}
	n := d.N
	h := &Head[T]{be: be, x: make([]T, len(d.X)), y: d.Y, n: n, grad: NewParams[T](),
		q: make([]T, n*KeyDim), k: make([]T, n*KeyDim), v: make([]T, n*ValueDim),
		dq: make([]T, n*KeyDim), dk: make([]T, n*KeyDim), dv: make([]T, n*ValueDim),
		o: make([]T, block*ValueDim), logits: make([]T, block*Symbols), dlog: make([]T, block*Symbols),
		do: make([]T, block*ValueDim), att: make([]T, block*n), datt: make([]T, block*n)}
	for i, x := range d.X {
		h.x[i] = T(x)
	}
	return h, nil
}

// Grad is the gradient of the last LossGrad (the head's own matrices, overwritten by the next).
func (h *Head[T]) Grad() Params[T] { return h.grad }

// Loss returns the mean cross-entropy of p on the sequence.
func (h *Head[T]) Loss(p Params[T]) float64 { return h.pass(p, false) }

// LossGrad returns the mean cross-entropy of p and leaves its gradient in Grad.
func (h *Head[T]) LossGrad(p Params[T]) float64 { return h.pass(p, true) }

func (h *Head[T]) pass(p Params[T], grad bool) float64 {
	n, be := h.n, h.be
	mul := func(tA, tB bool, m, nn, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
		models.MatMul(be, tA, tB, m, nn, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
	mul(false, false, n, KeyDim, Dim, 1, h.x, Dim, p.WQ, KeyDim, 0, h.q, KeyDim)
	mul(false, false, n, KeyDim, Dim, 1, h.x, Dim, p.WK, KeyDim, 0, h.k, KeyDim)
	mul(false, false, n, ValueDim, Dim, 1, h.x, Dim, p.WV, ValueDim, 0, h.v, ValueDim)
	if grad {
		clear(h.dk)
		clear(h.dv)
		clear(h.grad.WO)
	}
	scale := T(1 / math.Sqrt(KeyDim))
	inv := 1 / float64(n)
	loss := 0.0
	for r0 := 0; r0 < n; r0 += block {
		rows := min(block, n-r0)
		c := r0 + rows // keys 0..c−1 reach this block's queries
		qb := h.q[r0*KeyDim:]
		// Scores, then each row's softmax over its keys 0..r0+i (the rest of the row zero).
		mul(false, true, rows, c, KeyDim, scale, qb, KeyDim, h.k, KeyDim, 0, h.att, n)
		for i := range rows {
			row := h.att[i*n : i*n+c]
			models.SoftmaxRow(row[:r0+i+1])
			clear(row[r0+i+1:])
		}
		mul(false, false, rows, ValueDim, c, 1, h.att, n, h.v, ValueDim, 0, h.o, ValueDim)
		mul(false, false, rows, Symbols, ValueDim, 1, h.o, ValueDim, p.WO, Symbols, 0, h.logits, Symbols)
		for i := range rows {
			loss += crossEntropy(h.logits[i*Symbols:(i+1)*Symbols], h.dlog[i*Symbols:(i+1)*Symbols], h.y[r0+i], inv)
		}
		if !grad {
			continue
		}
		// Back through W_O, the values and the attention of this block's rows.
		mul(true, false, ValueDim, Symbols, rows, 1, h.o, ValueDim, h.dlog, Symbols, 1, h.grad.WO, Symbols)
		mul(false, true, rows, ValueDim, Symbols, 1, h.dlog, Symbols, p.WO, Symbols, 0, h.do, ValueDim)
		mul(false, true, rows, c, ValueDim, 1, h.do, ValueDim, h.v, ValueDim, 0, h.datt, n)
		mul(true, false, c, ValueDim, rows, 1, h.att, n, h.do, ValueDim, 1, h.dv, ValueDim)
		for i := range rows {
			row := h.datt[i*n : i*n+c]
			models.SoftmaxBack(h.att[i*n:i*n+r0+i+1], row[:r0+i+1])
			clear(row[r0+i+1:])
		}
		mul(false, false, rows, KeyDim, c, scale, h.datt, n, h.k, KeyDim, 0, h.dq[r0*KeyDim:], KeyDim)
		mul(true, false, c, KeyDim, rows, scale, h.datt, n, qb, KeyDim, 1, h.dk, KeyDim)
	}
	if grad {
		mul(true, false, Dim, KeyDim, n, 1, h.x, Dim, h.dq, KeyDim, 0, h.grad.WQ, KeyDim)
		mul(true, false, Dim, KeyDim, n, 1, h.x, Dim, h.dk, KeyDim, 0, h.grad.WK, KeyDim)
		mul(true, false, Dim, ValueDim, n, 1, h.x, Dim, h.dv, ValueDim, 0, h.grad.WV, ValueDim)
	}
	return loss / float64(n)
}

// crossEntropy returns −log softmax(logits)[y], computed as log Σ exp(l − max) + max − l_y
// in float64 (finite however sharp the logits), and sets dl to (softmax − onehot(y))·scale,
// its gradient scaled by the mean's 1/N.
func crossEntropy[T models.Float](logits, dl []T, y int, scale float64) float64 {
	mx := float64(logits[0])
	for _, l := range logits[1:] {
		mx = math.Max(mx, float64(l))
	}
	s := 0.0
	var e [Symbols]float64
	for j, l := range logits {
		e[j] = math.Exp(float64(l) - mx)
		s += e[j]
	}
	for j := range dl {
		dl[j] = T(e[j] / s * scale)
	}
	dl[y] -= T(scale)
	return math.Log(s) + mx - float64(logits[y])
}
