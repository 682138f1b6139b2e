package models

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
)

// Kernels of the recurrent baselines: the LSTM recurrence, and Mamba's causal depthwise
// convolution and selective scan. Every one keeps what its backward pass needs in buffers
// it owns (grown, never shrunk) and lays sequences out as the rest of the package does:
// row n·T+t of an (N·T)×width matrix is token t of sequence n, so the rows of one time step
// across the batch are a strided view (leading dimension T·width) that a GEMM reads directly.

// sigmoidT is the logistic function 1/(1+e^−x).
func sigmoidT[T Float](x T) T { return 1 / (1 + expT(-x)) }

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
				sigmoidArr(sr, pr)
				for c, v := range pr {
					yr[c] = v * sr[c]
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
// (N·T)×E. Sequences run in parallel. With save (training graphs) the forward pass keeps the
// decays exp(Δ·A), N·T·E·S of them, when there are at most scanSaveMax; the backward pass
// replays each sequence's states from them in per-worker scratch (T×E×S), or recomputes the
// decays too when they were not kept.
type scanKernel[T Float] struct {
	p    pool
	t    int
	save bool
	// dec holds the decays of the last forward pass when saved is set, row-major
	// (N·T)×E×S.
	dec   []T
	saved bool
	a     []T // E×S: A = −exp(Alog)
	ae    []T // E×S: A·log2(e) in float32 (scanStep32 computes 2^x), A in float64
	dl    []T // (N·T)×E: Δ = softplus(δ)
	sd    []T // (N·T)×E: sigmoid(δ), dΔ/dδ
	sz    []T // (N·T)×E: sigmoid(z)
	yp    []T // (N·T)×E: C·h + D·u, before the gate
	// Per-worker scratch: the forward pass's state (E×S) and decays (S); the backward pass's
	// state history and decays (T×E×S each), state gradient and zero state (E×S each).
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
	k.sd, k.sz, k.ae = grow(k.sd, m*e), grow(k.sz, m*e), grow(k.ae, e*S)
	for i, v := range alog {
		k.a[i] = -expT(v)
		k.ae[i] = k.a[i]
		if is32[T]() {
			k.ae[i] *= math.Log2E
		}
	}
	k.p.rows(m, 64, func(lo, hi int) {
		softplusSigmoidArr(k.dl[lo*e:hi*e], k.sd[lo*e:hi*e], dr[lo*e:hi*e])
		sigmoidArr(k.sz[lo*e:hi*e], z[lo*e:hi*e])
	})
	k.saved = k.save && m*e*S <= scanSaveMax
	if k.saved {
		k.dec = grow(k.dec, m*e*S)
	}
	k.scratch(k.p.workers, (e+1)*S)
	k.p.each(m/L, func(w, q int) {
		hs, ev := k.ws[w][:e*S], k.ws[w][e*S:(e+1)*S]
		zero(hs)
		for s := 0; s < L; s++ {
			r := q*L + s
			br, cr := bm[r*S:(r+1)*S], cm[r*S:(r+1)*S]
			for c := 0; c < e; c++ {
				i := r*e + c
				dl, uu := k.dl[i], u[i]
				if k.saved {
					ev = k.dec[i*S : (i+1)*S]
				}
				acc := scanStep(hs[c*S:(c+1)*S], hs[c*S:(c+1)*S], ev, k.ae[c*S:(c+1)*S], br, dl, dl*uu, cr)
				acc += dv[c] * uu
				k.yp[i] = acc
				y[i] = acc * z[i] * k.sz[i]
			}
		}
	})
	return 0
}

func (k *scanKernel[T]) backward(in []*tensor.Dense, _, gout *tensor.Dense, _ float64, gin []*tensor.Dense) {
	u, alog, bm, cm, dv, z, gy := data[T](in[0]), data[T](in[2]), data[T](in[3]),
		data[T](in[4]), data[T](in[5]), data[T](in[6]), data[T](gout)
	du, ddr, dalog, dbm, dcm, ddv, dz := data[T](gin[0]), data[T](gin[1]), data[T](gin[2]), data[T](gin[3]),
		data[T](gin[4]), data[T](gin[5]), data[T](gin[6])
	m, e := rows2(in[0].Shape())
	S := len(alog) / e
	L, n := k.t, m/k.t
	es := e * S
	k.scratch(k.p.workers, (2*L+2)*es)
	k.part = grow(k.part, n*(es+e))
	a := k.a
	k.p.each(n, func(w, q int) {
		ws := k.ws[w]
		hist, dec, dh, h0 := ws[:L*es], ws[L*es:2*L*es], ws[2*L*es:(2*L+1)*es], ws[(2*L+1)*es:(2*L+2)*es]
		if k.saved {
			dec = k.dec[q*L*es : (q+1)*L*es]
		}
		zero(h0)
		pa := k.part[q*(es+e) : (q+1)*(es+e)]
		zero(pa)
		pA, pD := pa[:es], pa[es:]
		// Replay the states h_t of this sequence (h_{−1} = h0 = 0), recomputing the decays
		// exp(Δ_t·A) unless they were saved.
		for s := 0; s < L; s++ {
			r := q*L + s
			br := bm[r*S : (r+1)*S]
			hr, er, hp := hist[s*es:(s+1)*es], dec[s*es:(s+1)*es], h0
			if s > 0 {
				hp = hist[(s-1)*es : s*es]
			}
			for c := 0; c < e; c++ {
				i := r*e + c
				dl, j := k.dl[i], c*S
				if k.saved {
					scanReplay(hr[j:j+S], hp[j:j+S], er[j:j+S], br, dl*u[i])
				} else {
					scanStep(hr[j:j+S], hp[j:j+S], er[j:j+S], k.ae[j:j+S], br, dl, dl*u[i], nil)
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
			hr, er, hp := hist[s*es:(s+1)*es], dec[s*es:(s+1)*es], h0
			if s > 0 {
				hp = hist[(s-1)*es : s*es]
			}
			for c := 0; c < e; c++ {
				i := r*e + c
				zv, sz := z[i], k.sz[i]
				g := gy[i]
				dyp := g * zv * sz
				dz[i] = g * k.yp[i] * sz * (1 + zv*(1-sz))
				uu, dl := u[i], k.dl[i]
				pD[c] += dyp * uu
				j := c * S
				sB, sA := scanStepBack(dh[j:j+S], pA[j:j+S], dcr, dbr, hr[j:j+S], hp[j:j+S], er[j:j+S], a[j:j+S], br, cr, dyp, dl, dl*uu)
				du[i] = dyp*dv[c] + dl*sB
				ddr[i] = (uu*sB + sA) * k.sd[i]
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
		// The per-sequence sums hold Σ_t dL/d(Δ_t·A)·Δ_t = dL/dA; dAlog = dL/dA·A since
		// A = −exp(Alog).
		for i := lo; i < min(hi, es); i++ {
			dalog[i] *= a[i]
		}
	})
}

// scanSaveMax is the most decays (N·T·E·S) a scan kernel keeps for its backward pass: 16M,
// 64 MB in float32 (the quick presets need at most 15M).
const scanSaveMax = 1 << 24

// scanReplay is scanStep with known decays: h[j] = ev[j]·hp[j] + du·b[j].
func scanReplay[T Float](h, hp, ev, b []T, du T) {
	hp, ev, b = hp[:len(h)], ev[:len(h)], b[:len(h)]
	for j := range h {
		h[j] = ev[j]*hp[j] + du*b[j]
	}
}

// scanStep advances one channel's state by one token: h[j] = exp(Δ·A[j])·hp[j] + Δu·b[j]
// (h may alias hp), storing the decays in ev, and returns Σ c[j]·h[j] (0 when c is nil).
// a is A in float64 and A·log2(e) in float32 (see scanStep32).
func scanStep[T Float](h, hp, ev, a, b []T, dl, du T, c []T) T {
	if is32[T]() {
		return T(scanStep32(as32(h), as32(hp), as32(ev), as32(a), as32(b), float32(dl), float32(du), as32(c)))
	}
	hp, ev, a, b = hp[:len(h)], ev[:len(h)], a[:len(h)], b[:len(h)]
	var acc T
	for j := range h {
		x := T(math.Exp(float64(dl * a[j])))
		ev[j] = x
		hv := x*hp[j] + du*b[j]
		h[j] = hv
		if c != nil {
			acc += c[j] * hv
		}
	}
	return acc
}

// scanStep32 is scanStep in float32 with exp inlined and without its branches, for
// a = A·log2(e): y = Δ·a is split into the nearest integer n (by the 1.5·2²³ trick) and
// r ∈ [−½, ½], 2^r is a degree-6 Taylor polynomial (relative error ≤ 1.2e-7 plus the
// rounding of y, about |y|·6e-8) and 2^n goes into the exponent. Exponents below −124 are
// clamped (2^−124 ≈ 4e-38); the scan's are never positive (Δ > 0, A < 0). The constants
// are local variables so that the loop keeps them in registers.
func scanStep32(h, hp, ev, a, b []float32, dl, du float32, c []float32) float32 {
	magic, lo := float32(12582912), float32(-124) // 1.5·2²³: adding it rounds to an integer
	c6, c5, c4, c3 := float32(1.5403530393e-04), float32(1.3333558146e-03), float32(9.6181291076e-03), float32(5.5504108665e-02)
	c2, c1 := float32(2.4022650696e-01), float32(6.9314718056e-01)
	n := len(h)
	hp, ev, a, b = hp[:n], ev[:n], a[:n], b[:n]
	if c == nil {
		for j := range h {
			y := dl * a[j]
			if y < lo {
				y = lo
			}
			t := y + magic
			r := y - (t - magic)
			p := ((((((c6*r+c5)*r+c4)*r+c3)*r+c2)*r+c1)*r + 1)
			x := math.Float32frombits(math.Float32bits(p) + (math.Float32bits(t)-0x4b400000)<<23)
			ev[j] = x
			h[j] = x*hp[j] + du*b[j]
		}
		return 0
	}
	c = c[:n]
	var acc float32
	for j := range h {
		y := dl * a[j]
		if y < lo {
			y = lo
		}
		t := y + magic
		r := y - (t - magic)
		p := ((((((c6*r+c5)*r+c4)*r+c3)*r+c2)*r+c1)*r + 1)
		x := math.Float32frombits(math.Float32bits(p) + (math.Float32bits(t)-0x4b400000)<<23)
		ev[j] = x
		hv := x*hp[j] + du*b[j]
		h[j] = hv
		acc += c[j] * hv
	}
	return acc
}

// scanStepBack is one channel's reverse step at token t. dh holds dL/dh_{t+1}·exp(Δ_{t+1}·a)
// on entry and dL/dh_t·exp(Δ_t·a) on return; with gh = dh + dyp·c (the whole dL/dh_t) it
// adds dyp·h to dc, gh·Δu to db, gh·hp·ev·Δ to pa (dL/da / a, summed over t), and returns
// Σ gh·b and Σ gh·hp·ev·a, from which du and dΔ follow.
func scanStepBack[T Float](dh, pa, dc, db, h, hp, ev, a, b, c []T, dyp, dl, dlu T) (sB, sA T) {
	n := len(dh)
	pa, dc, db, h, hp, ev, a, b, c = pa[:n], dc[:n], db[:n], h[:n], hp[:n], ev[:n], a[:n], b[:n], c[:n]
	var sB1, sA1 T
	j := 0
	for ; j+1 < n; j += 2 {
		g0, g1 := dh[j]+dyp*c[j], dh[j+1]+dyp*c[j+1]
		dc[j] += dyp * h[j]
		dc[j+1] += dyp * h[j+1]
		db[j] += g0 * dlu
		db[j+1] += g1 * dlu
		sB += g0 * b[j]
		sB1 += g1 * b[j+1]
		t0, t1 := g0*hp[j]*ev[j], g1*hp[j+1]*ev[j+1]
		sA += t0 * a[j]
		sA1 += t1 * a[j+1]
		pa[j] += t0 * dl
		pa[j+1] += t1 * dl
		dh[j], dh[j+1] = g0*ev[j], g1*ev[j+1]
	}
	for ; j < n; j++ {
		g := dh[j] + dyp*c[j]
		dc[j] += dyp * h[j]
		db[j] += g * dlu
		sB += g * b[j]
		t := g * hp[j] * ev[j]
		sA += t * a[j]
		pa[j] += t * dl
		dh[j] = g * ev[j]
	}
	return sB + sB1, sA + sA1
}

// Array versions of the scan's and convolution's pointwise functions. In float32 they
// inline the exp of scanStep32 (on arguments ≤ 0, clamped at −86) so that a loop does no
// calls; in float64 they use the math package.

// sigmoidArr sets dst[j] = 1/(1+e^−x[j]).
func sigmoidArr[T Float](dst, x []T) {
	if !is32[T]() {
		for j, v := range x[:len(dst)] {
			dst[j] = T(sigmoid64(float64(v)))
		}
		return
	}
	const magic = 12582912
	d, s := as32(dst), as32(x)
	s = s[:len(d)]
	for j, v := range s {
		// e = exp(−|v|) ∈ (0, 1]; σ(v) = 1/(1+e) for v ≥ 0, e/(1+e) below, selected without
		// a branch (the sign of v is unpredictable).
		b := math.Float32bits(v)
		neg := float32(b >> 31)
		a := math.Float32frombits(b | 0x80000000)
		if a < -86 {
			a = -86
		}
		y := a * 1.44269504088896341
		t := y + magic
		r := y - (t - magic)
		p := float32(1.5403530393e-04)
		p = p*r + 1.3333558146e-03
		p = p*r + 9.6181291076e-03
		p = p*r + 5.5504108665e-02
		p = p*r + 2.4022650696e-01
		p = p*r + 6.9314718056e-01
		p = p*r + 1
		e := math.Float32frombits(math.Float32bits(p) + (math.Float32bits(t)-0x4b400000)<<23)
		d[j] = (1 + neg*(e-1)) / (1 + e)
	}
}

// softplusSigmoidArr sets sp[j] = log(1+e^x[j]) and sg[j] = 1/(1+e^−x[j]), its derivative.
func softplusSigmoidArr[T Float](sp, sg, x []T) {
	if !is32[T]() {
		for j, v := range x[:len(sp)] {
			f := float64(v)
			sp[j] = T(math.Max(f, 0) + math.Log1p(math.Exp(-math.Abs(f))))
			sg[j] = T(sigmoid64(f))
		}
		return
	}
	const magic = 12582912
	dp, dg, s := as32(sp), as32(sg), as32(x)
	s, dg = s[:len(dp)], dg[:len(dp)]
	for j, v := range s {
		b := math.Float32bits(v)
		neg := float32(b >> 31)
		a := math.Float32frombits(b | 0x80000000) // −|v|
		if a < -86 {
			a = -86
		}
		y := a * 1.44269504088896341
		t := y + magic
		r := y - (t - magic)
		p := float32(1.5403530393e-04)
		p = p*r + 1.3333558146e-03
		p = p*r + 9.6181291076e-03
		p = p*r + 5.5504108665e-02
		p = p*r + 2.4022650696e-01
		p = p*r + 6.9314718056e-01
		p = p*r + 1
		e := math.Float32frombits(math.Float32bits(p) + (math.Float32bits(t)-0x4b400000)<<23)
		// log(1+e) = 2·atanh(q), q = e/(2+e) ∈ (0, 1/3]: the odd series to q¹³ (error < 1e-8).
		q := e / (2 + e)
		w := q * q
		l := float32(1.0 / 13)
		l = l*w + 1.0/11
		l = l*w + 1.0/9
		l = l*w + 1.0/7
		l = l*w + 1.0/5
		l = l*w + 1.0/3
		l = l*w + 1
		l *= 2 * q
		// softplus(v) = max(v, 0) + log(1+e), σ(v) as in sigmoidArr, both without branches.
		dp[j] = l + math.Float32frombits(b&((b>>31)-1))
		dg[j] = (1 + neg*(e-1)) / (1 + e)
	}
}

func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
