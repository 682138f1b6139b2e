package models

import (
	"fmt"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
)

// Kernels of the recurrent baselines: the LSTM recurrence, and Mamba's causal depthwise
// convolution and selective scan. Every one keeps what its backward pass needs in buffers
// it owns (grown, never shrunk) and lays sequences out as the rest of the package does:
// row n·T+t of an (N·T)×width matrix is token t of sequence n, so the rows of one time step
// across the batch are a strided view (leading dimension T·width) that a GEMM reads directly.

// grow returns s resized to n, reallocating only when its capacity is short.
func grow[T Float](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// lstmKernel is one LSTM layer over whole sequences: h = LSTM(x) with hidden size H, gates
// [i f g o] = x_t·Wx + h_{t−1}·Wh + b (columns in that order, H each), c_t = f⊙c_{t−1} + i⊙g,
// h_t = o⊙tanh(c_t), h_{−1} = c_{−1} = 0. Inputs: x (N·T)×D, Wx D×4H, Wh H×4H, b 1×4H;
// output (N·T)×H. The input projection is one GEMM over every token; the recurrence is one
// GEMM per time step over the batch, the gate nonlinearities are split over sequences.
type lstmKernel[T Float] struct {
	be gemm.Backend
	p  par.Pool
	t  int // sequence length

	act   []T // (N·T)×4H: the gate activations i, f, g, o
	c     []T // (N·T)×H: cell states
	tc    []T // (N·T)×H: tanh(c)
	hprev []T // (N·T)×H: h_{t−1} (zero rows at t = 0)
	dpre  []T // (N·T)×4H: gradient of the gate pre-activations
	dh    []T // N×H: gradient reaching h_t through the recurrence
	dc    []T // N×H: gradient reaching c_t from c_{t+1}
	part  [][]T
}

func (k *lstmKernel[T]) name() string { return "LSTM" }
func (k *lstmKernel[T]) diff(n int) []bool {
	return []bool{true, true, true, true}
}

func (k *lstmKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	m, d := rows2(in[0])
	if k.t < 1 || m%k.t != 0 {
		return nil, fmt.Errorf("input rows %d not a multiple of length %d", m, k.t)
	}
	wr, wc := rows2(in[1])
	hr, hc := rows2(in[2])
	br, bc := rows2(in[3])
	h := hr
	switch {
	case wr != d || wc != 4*h:
		return nil, fmt.Errorf("input weight %v does not fit input %v and hidden size %d", in[1], in[0], h)
	case hc != 4*h:
		return nil, fmt.Errorf("recurrent weight %v is not H×4H", in[2])
	case br != 1 || bc != 4*h:
		return nil, fmt.Errorf("bias %v is not 1×%d", in[3], 4*h)
	}
	return tensor.Shape{m, h}, nil
}

func (k *lstmKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	x, wx, wh, b, y := data[T](in[0]), data[T](in[1]), data[T](in[2]), data[T](in[3]), data[T](out)
	m, d := rows2(in[0].Shape())
	h := len(b) / 4
	L, n, g4 := k.t, m/k.t, 4*h
	k.act = grow(k.act, m*g4)
	k.c, k.tc, k.hprev = grow(k.c, m*h), grow(k.tc, m*h), grow(k.hprev, m*h)
	act := k.act
	// Gate pre-activations from the input, every token at once, plus the bias.
	mm(k.be, false, false, m, g4, d, 1, x, d, wx, g4, 0, act, g4)
	k.p.Rows(m, 64, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			ar := act[r*g4 : (r+1)*g4]
			for j, v := range b {
				ar[j] += v
			}
		}
	})
	for s := 0; s < L; s++ {
		if s > 0 {
			// act[·, s] += h_{s−1}·Wh for the whole batch: rows s, s+T, … (stride T).
			mm(k.be, false, false, n, g4, h, 1, k.hprev[s*h:], L*h, wh, g4, 1, act[s*g4:], L*g4)
		}
		k.p.Rows(n, 8, func(lo, hi int) {
			for q := lo; q < hi; q++ {
				r := q*L + s
				ar := act[r*g4 : (r+1)*g4]
				ai, af, ag, ao := ar[:h], ar[h:2*h], ar[2*h:3*h], ar[3*h:]
				cr, tr, yr := k.c[r*h:(r+1)*h], k.tc[r*h:(r+1)*h], y[r*h:(r+1)*h]
				var cp []T
				if s > 0 {
					cp = k.c[(r-1)*h : r*h]
				} else {
					zero(k.hprev[r*h : (r+1)*h])
				}
				// The gates in place, each a vector loop: σ over i and f (adjacent), tanh
				// over g, σ over o; then c and h.
				sigmoidArr(ar[:2*h], ar[:2*h])
				tanhArr(ag, ag)
				sigmoidArr(ao, ao)
				for j := 0; j < h; j++ {
					cv := ai[j] * ag[j]
					if cp != nil {
						cv += af[j] * cp[j]
					}
					cr[j] = cv
				}
				tanhArr(tr, cr)
				for j := 0; j < h; j++ {
					yr[j] = ao[j] * tr[j]
				}
				if s+1 < L {
					copy(k.hprev[(r+1)*h:(r+2)*h], yr)
				}
			}
		})
	}
	return 0
}

func (k *lstmKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	x, wx, wh, dy := data[T](in[0]), data[T](in[1]), data[T](in[2]), data[T](gout)
	dx, dwx, dwh, db := data[T](gin[0]), data[T](gin[1]), data[T](gin[2]), data[T](gin[3])
	m, d := rows2(in[0].Shape())
	h := len(db) / 4
	L, n, g4 := k.t, m/k.t, 4*h
	k.dpre = grow(k.dpre, m*g4)
	k.dh, k.dc = grow(k.dh, n*h), grow(k.dc, n*h)
	zero(k.dh)
	zero(k.dc)
	dpre, act := k.dpre, k.act
	for s := L - 1; s >= 0; s-- {
		if s < L-1 {
			// dh_s (through the recurrence) = dpre[·, s+1]·Whᵀ.
			mm(k.be, false, true, n, h, g4, 1, dpre[(s+1)*g4:], L*g4, wh, g4, 0, k.dh, h)
		}
		k.p.Rows(n, 8, func(lo, hi int) {
			for q := lo; q < hi; q++ {
				r := q*L + s
				ar, pr := act[r*g4:(r+1)*g4], dpre[r*g4:(r+1)*g4]
				tr, dyr := k.tc[r*h:(r+1)*h], dy[r*h:(r+1)*h]
				dhr, dcr := k.dh[q*h:(q+1)*h], k.dc[q*h:(q+1)*h]
				var cp []T
				if s > 0 {
					cp = k.c[(r-1)*h : r*h]
				}
				for j := 0; j < h; j++ {
					i, f, g, o := ar[j], ar[h+j], ar[2*h+j], ar[3*h+j]
					th := tr[j]
					dhv := dyr[j] + dhr[j]
					dcv := dhv*o*(1-th*th) + dcr[j]
					var c0 T
					if cp != nil {
						c0 = cp[j]
					}
					pr[j] = dcv * g * i * (1 - i)
					pr[h+j] = dcv * c0 * f * (1 - f)
					pr[2*h+j] = dcv * i * (1 - g*g)
					pr[3*h+j] = dhv * th * o * (1 - o)
					dcr[j] = dcv * f
				}
			}
		})
	}
	mm(k.be, false, true, m, d, g4, 1, dpre, g4, wx, g4, 0, dx, d)
	mm(k.be, true, false, d, g4, m, 1, x, d, dpre, g4, 0, dwx, g4)
	mm(k.be, true, false, h, g4, m, 1, k.hprev, h, dpre, g4, 0, dwh, g4)
	zero(db)
	if k.part == nil {
		k.part = newScratch[T](k.p.Workers, g4)
	}
	colSums(k.p, k.part, db, dpre, m, g4)
}
