package models

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"windtunnel/gemm"
)

// Kernels of the recurrent baselines: the LSTM recurrence, and Mamba's causal depthwise
// convolution and selective scan. Every one keeps what its backward pass needs in buffers
// it owns (grown, never shrunk) and lays sequences out as the rest of the package does:
// row n·T+t of an (N·T)×width matrix is token t of sequence n, so the rows of one time step
// across the batch are a strided view (leading dimension T·width) that a GEMM reads directly.

// sigmoidT is the logistic function 1/(1+e^−x).
func sigmoidT[T Float](x T) T { return 1 / (1 + expT(-x)) }

// logf is a float32 natural logarithm for finite x > 0 (Cephes' range reduction and
// polynomial, about 1 ulp), a fraction of the cost of math.Log.
func logf(x float32) float32 {
	b := math.Float32bits(x)
	e := int32(b>>23) - 126
	m := math.Float32frombits(b&0x007fffff | 0x3f000000) // [0.5, 1)
	if m < 0.70710678118654752 {
		e--
		m = m + m - 1
	} else {
		m--
	}
	z := m * m
	y := float32(7.0376836292e-2)
	y = y*m - 1.1514610310e-1
	y = y*m + 1.1676998740e-1
	y = y*m - 1.2420140846e-1
	y = y*m + 1.4249322787e-1
	y = y*m - 1.6668057665e-1
	y = y*m + 2.0000714765e-1
	y = y*m - 2.4999993993e-1
	y = y*m + 3.3333331174e-1
	y *= m * z
	fe := float32(e)
	y += -2.12194440e-4 * fe
	y += -0.5 * z
	return m + y + 0.693359375*fe
}

// softplusT is log(1+e^x).
func softplusT[T Float](x T) T {
	if x > 20 {
		return x
	}
	if is32[T]() {
		return T(logf(1 + expf(float32(x))))
	}
	return T(math.Log1p(math.Exp(float64(x))))
}

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
	p  pool
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
	k.p.rows(m, 64, func(lo, hi int) {
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
		k.p.rows(n, 8, func(lo, hi int) {
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
				for j := 0; j < h; j++ {
					i, f, g, o := sigmoidT(ai[j]), sigmoidT(af[j]), tanhT(ag[j]), sigmoidT(ao[j])
					ai[j], af[j], ag[j], ao[j] = i, f, g, o
					cv := i * g
					if cp != nil {
						cv += f * cp[j]
					}
					th := tanhT(cv)
					cr[j], tr[j] = cv, th
					yr[j] = o * th
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
		k.p.rows(n, 8, func(lo, hi int) {
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
		k.part = newScratch[T](k.p.workers, g4)
	}
	colSums(k.p, k.part, db, dpre, m, g4)
}

// convKernel is Mamba's causal depthwise convolution over time followed by SiLU:
// y[n,t,e] = silu(b[e] + Σ_{j<K} w[j,e]·u[n, t−K+1+j, e]), with u zero before the
// sequence starts. Inputs: u (N·T)×E, w K×E, b 1×E; output (N·T)×E.
type convKernel[T Float] struct {
	p    pool
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
	k.p.rows(m/L, 1, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			for s := 0; s < L; s++ {
				r := q*L + s
				pr := k.pre[r*e : (r+1)*e]
				copy(pr, b)
				for j := max(0, K-1-s); j < K; j++ {
					ur, wr := u[(r-K+1+j)*e:][:e], w[j*e:(j+1)*e]
					for c, v := range ur {
						pr[c] += wr[c] * v
					}
				}
				sr, yr := k.sg[r*e:(r+1)*e], y[r*e:(r+1)*e]
				for c, v := range pr {
					sv := sigmoidT(v)
					sr[c] = sv
					yr[c] = v * sv
				}
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
	k.p.rows(n, 1, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			acc := k.part[q*(K+1)*e : (q+1)*(K+1)*e]
			zero(acc)
			zero(du[q*L*e : (q+1)*L*e])
			for s := 0; s < L; s++ {
				r := q*L + s
				dp, pr, sr, dyr := k.dpre[r*e:(r+1)*e], k.pre[r*e:(r+1)*e], k.sg[r*e:(r+1)*e], dy[r*e:(r+1)*e]
				ab := acc[K*e:]
				for c, g := range dyr {
					sv := sr[c]
					v := g * sv * (1 + pr[c]*(1-sv))
					dp[c] = v
					ab[c] += v
				}
				for j := max(0, K-1-s); j < K; j++ {
					src := (r - K + 1 + j) * e
					ur, dur, wr, aw := u[src:src+e], du[src:src+e], w[j*e:(j+1)*e], acc[j*e:(j+1)*e]
					for c, v := range dp {
						aw[c] += v * ur[c]
						dur[c] += v * wr[c]
					}
				}
			}
		}
	})
	zero(dw)
	zero(db)
	k.p.rows((K+1)*e, 64, func(lo, hi int) {
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

// scanKernel is Mamba's selective scan with its gate, per sequence and channel e (state
// size S):
//
//	Δ_t = softplus(δ_t,e), A_e = −exp(Alog_e),
//	h_t = exp(Δ_t·A_e)⊙h_{t−1} + Δ_t·u_t,e·B_t,  h_{−1} = 0,
//	y_t,e = (C_t·h_t + D_e·u_t,e) · silu(z_t,e).
//
// Inputs: u (N·T)×E, δ (N·T)×E, Alog E×S, B (N·T)×S, C (N·T)×S, D 1×E, z (N·T)×E; output
// (N·T)×E. Sequences run in parallel; the backward pass recomputes a sequence's states (in
// per-worker scratch, T×E×S) instead of keeping all N·T·E·S of them.
type scanKernel[T Float] struct {
	p  pool
	t  int
	a  []T // E×S: A = −exp(Alog)
	dl []T // (N·T)×E: Δ
	yp []T // (N·T)×E: C·h + D·u, before the gate
	// Per-worker scratch: the state (E×S), then the backward pass's state history and
	// decays (T×E×S each) and state gradient (E×S).
	ws [][]T
	// Per-sequence partial gradients of Alog (E×S) and D (E), summed in a fixed order.
	part []T
}

func (k *scanKernel[T]) name() string { return "SelectiveScan" }
func (k *scanKernel[T]) diff(n int) []bool {
	return []bool{true, true, true, true, true, true, true}
}

func (k *scanKernel[T]) outShape(in []tensor.Shape) (tensor.Shape, error) {
	m, e := rows2(in[0])
	if k.t < 1 || m%k.t != 0 {
		return nil, fmt.Errorf("input rows %d not a multiple of length %d", m, k.t)
	}
	ar, s := rows2(in[2])
	for _, i := range []int{1, 6} {
		if r, c := rows2(in[i]); r != m || c != e {
			return nil, fmt.Errorf("input %d %v does not match u %v", i, in[i], in[0])
		}
	}
	for _, i := range []int{3, 4} {
		if r, c := rows2(in[i]); r != m || c != s {
			return nil, fmt.Errorf("input %d %v is not %d×%d", i, in[i], m, s)
		}
	}
	switch {
	case ar != e:
		return nil, fmt.Errorf("A %v does not fit width %d", in[2], e)
	case in[5][0] != 1 || in[5][1] != e:
		return nil, fmt.Errorf("D %v does not fit width %d", in[5], e)
	}
	return tensor.Shape{m, e}, nil
}

func (k *scanKernel[T]) scratch(workers, n int) {
	if len(k.ws) < workers {
		k.ws = make([][]T, workers)
	}
	for i := range k.ws[:workers] {
		k.ws[i] = grow(k.ws[i], n)
	}
}

func (k *scanKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	u, dr, alog, bm, cm, dv, z, y := data[T](in[0]), data[T](in[1]), data[T](in[2]), data[T](in[3]),
		data[T](in[4]), data[T](in[5]), data[T](in[6]), data[T](out)
	m, e := rows2(in[0].Shape())
	S := len(alog) / e
	L := k.t
	k.a, k.dl, k.yp = grow(k.a, e*S), grow(k.dl, m*e), grow(k.yp, m*e)
	for i, v := range alog {
		k.a[i] = -expT(v)
	}
	k.scratch(k.p.workers, (e+1)*S)
	a := k.a
	k.p.each(m/L, func(w, q int) {
		hs, ev := k.ws[w][:e*S], k.ws[w][e*S:(e+1)*S]
		zero(hs)
		for s := 0; s < L; s++ {
			r := q*L + s
			br, cr := bm[r*S:(r+1)*S], cm[r*S:(r+1)*S]
			for c := 0; c < e; c++ {
				i := r*e + c
				dl := softplusT(dr[i])
				k.dl[i] = dl
				uu := u[i]
				du := dl * uu
				h := hs[c*S : (c+1)*S]
				expRow(ev, a[c*S:(c+1)*S], dl)
				var acc T
				for j := range h {
					hv := ev[j]*h[j] + du*br[j]
					h[j] = hv
					acc += cr[j] * hv
				}
				acc += dv[c] * uu
				k.yp[i] = acc
				zv := z[i]
				y[i] = acc * zv * sigmoidT(zv)
			}
		}
	})
	return 0
}

func (k *scanKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	u, dr, alog, bm, cm, dv, z, gy := data[T](in[0]), data[T](in[1]), data[T](in[2]), data[T](in[3]),
		data[T](in[4]), data[T](in[5]), data[T](in[6]), data[T](gout)
	du, ddr, dalog, dbm, dcm, ddv, dz := data[T](gin[0]), data[T](gin[1]), data[T](gin[2]), data[T](gin[3]),
		data[T](gin[4]), data[T](gin[5]), data[T](gin[6])
	m, e := rows2(in[0].Shape())
	S := len(alog) / e
	L, n := k.t, m/k.t
	es := e * S
	k.scratch(k.p.workers, (2*L+1)*es)
	k.part = grow(k.part, n*(es+e))
	a := k.a
	k.p.each(n, func(w, q int) {
		ws := k.ws[w]
		hist, dec, dh := ws[:L*es], ws[L*es:2*L*es], ws[2*L*es:(2*L+1)*es]
		pa := k.part[q*(es+e) : (q+1)*(es+e)]
		zero(pa)
		pA, pD := pa[:es], pa[es:]
		// Recompute the states h_t and decays exp(Δ_t·A) of this sequence.
		for s := 0; s < L; s++ {
			r := q*L + s
			br := bm[r*S : (r+1)*S]
			hr, er := hist[s*es:(s+1)*es], dec[s*es:(s+1)*es]
			for c := 0; c < e; c++ {
				i := r*e + c
				dl := k.dl[i]
				du := dl * u[i]
				h, ev := hr[c*S:(c+1)*S], er[c*S:(c+1)*S]
				expRow(ev, a[c*S:(c+1)*S], dl)
				if s == 0 {
					for j := range h {
						h[j] = du * br[j]
					}
					continue
				}
				hp := hist[(s-1)*es+c*S:][:S]
				for j := range h {
					h[j] = ev[j]*hp[j] + du*br[j]
				}
			}
		}
		zero(dh)
		for s := L - 1; s >= 0; s-- {
			r := q*L + s
			br, cr := bm[r*S:(r+1)*S], cm[r*S:(r+1)*S]
			dbr, dcr := dbm[r*S:(r+1)*S], dcm[r*S:(r+1)*S]
			zero(dbr)
			zero(dcr)
			hr, er := hist[s*es:(s+1)*es], dec[s*es:(s+1)*es]
			for c := 0; c < e; c++ {
				i := r*e + c
				zv := z[i]
				sz := sigmoidT(zv)
				g := gy[i]
				dyp := g * zv * sz
				dz[i] = g * k.yp[i] * sz * (1 + zv*(1-sz))
				uu, dl := u[i], k.dl[i]
				pD[c] += dyp * uu
				duu := dyp * dv[c]
				var ddl T
				h, ev, ac, dhc := hr[c*S:(c+1)*S], er[c*S:(c+1)*S], a[c*S:(c+1)*S], dh[c*S:(c+1)*S]
				pAc := pA[c*S : (c+1)*S]
				var hp []T
				if s > 0 {
					hp = hist[(s-1)*es+c*S:][:S]
				}
				dlu := dl * uu
				for j := range h {
					gh := dhc[j] + dyp*cr[j] // dL/dh_t
					dcr[j] += dyp * h[j]
					dbr[j] += gh * dlu
					duu += gh * dl * br[j]
					ddl += gh * uu * br[j]
					if hp != nil {
						t1 := gh * hp[j] * ev[j] // dL/d(Δ·A_j)
						ddl += t1 * ac[j]
						pAc[j] += t1 * dl * ac[j]
					}
					dhc[j] = gh * ev[j]
				}
				du[i] = duu
				ddr[i] = ddl * sigmoidT(dr[i])
			}
		}
	})
	zero(dalog)
	zero(ddv)
	k.p.rows(es+e, 64, func(lo, hi int) {
		for q := 0; q < n; q++ {
			pa := k.part[q*(es+e):]
			for i := lo; i < hi; i++ {
				if i < es {
					dalog[i] += pa[i]
				} else {
					ddv[i-es] += pa[i]
				}
			}
		}
	})
}

// expRow sets dst[j] = exp(x·a[j]). For float32 it is expf inlined without its branches,
// for the scan's inner loops: the argument is clamped to [−86, 88] and rounded to the
// nearest integer multiple of ln 2 by the 1.5·2²³ trick; the polynomial is expf's (about
// 2 ulp).
func expRow[T Float](dst, a []T, x T) {
	if !is32[T]() {
		for j, v := range a[:len(dst)] {
			dst[j] = T(math.Exp(float64(x * v)))
		}
		return
	}
	const magic = 12582912 // 1.5·2²³: adding it rounds to an integer
	d, s, xf := as32(dst), as32(a), float32(x)
	s = s[:len(d)]
	for j, v := range s {
		v = min(max(xf*v, -86), 88)
		t := v*1.44269504088896341 + magic
		n := t - magic
		v -= n * 0.693359375
		v -= n * -2.12194440e-4
		z := v * v
		y := float32(1.9875691500e-4)
		y = y*v + 1.3981999507e-3
		y = y*v + 8.3334519073e-3
		y = y*v + 4.1665795894e-2
		y = y*v + 1.6666665459e-1
		y = y*v + 5.0000001201e-1
		y = y*z + v + 1
		d[j] = math.Float32frombits(math.Float32bits(y) + (math.Float32bits(t)-0x4b400000)<<23)
	}
}
