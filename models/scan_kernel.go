package models

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"windtunnel/backends/par"
)

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
	p    par.Pool
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
	// scalar keeps the portable loops where the AVX2 row kernels would run (benchmarks and
	// tests compare the two).
	scalar bool
}

// vec reports whether the AVX2 row kernels of scan_amd64.s run for state size s.
func (k *scanKernel[T]) vec(s int) bool {
	return is32[T]() && haveAVX2 && !k.scalar && s > 0 && s%8 == 0
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
	k.p.Rows(m, 64, func(lo, hi int) {
		softplusSigmoidArr(k.dl[lo*e:hi*e], k.sd[lo*e:hi*e], dr[lo*e:hi*e])
		sigmoidArr(k.sz[lo*e:hi*e], z[lo*e:hi*e])
	})
	k.saved = k.save && m*e*S <= scanSaveMax
	if k.saved {
		k.dec = grow(k.dec, m*e*S)
	}
	k.scratch(k.p.Workers, 2*e*S+e)
	if k.vec(S) {
		k.p.Each(m/L, func(w, q int) { k.forwardRows(k.ws[w], q, e, S, in, out) })
		return 0
	}
	k.p.Each(m/L, func(w, q int) {
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
	k.scratch(k.p.Workers, (2*L+2)*es+5*e)
	k.part = grow(k.part, n*(es+e))
	a := k.a
	k.p.Each(n, func(w, q int) {
		if k.vec(S) {
			k.backwardRows(k.ws[w], q, e, S, in, gout, gin)
			return
		}
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
	k.p.Rows(es+e, 64, func(lo, hi int) {
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
// a = A·log2(e): 2^(Δ·a) is pow2f's (relative error ≤ 1.2e-7 plus the rounding of Δ·a,
// about |Δ·a|·6e-8). Exponents below −124 are clamped (2^−124 ≈ 4e-38); the scan's are never
// positive (Δ > 0, A < 0).
func scanStep32(h, hp, ev, a, b []float32, dl, du float32, c []float32) float32 {
	const lo = -124
	n := len(h)
	hp, ev, a, b = hp[:n], ev[:n], a[:n], b[:n]
	if c == nil {
		for j := range h {
			x := pow2f(max(dl*a[j], lo))
			ev[j] = x
			h[j] = x*hp[j] + du*b[j]
		}
		return 0
	}
	c = c[:n]
	var acc float32
	for j := range h {
		x := pow2f(max(dl*a[j], lo))
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
