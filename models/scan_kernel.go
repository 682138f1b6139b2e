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
// (N·T)×E. Sequences run in parallel, and within one the channels one after the other, each
// over the whole sequence (scan_chan.go), so that a channel's state stays in the first-level
// cache: the forward pass keeps no states, the backward pass replays one channel's T states
// and decays into per-worker scratch (T×S each) and runs back over them.
type scanKernel[T Float] struct {
	p   par.Pool
	t   int
	a   []T       // E×S: A = −exp(Alog)
	ae  []T       // E×S: A·log2(e) in float32 (scanStep32 computes 2^x), A in float64
	al  []float32 // ae laid out for the AVX-512 lane kernels (lanesA)
	aa  []float32 // a laid out for them
	dl  []T       // (N·T)×E: Δ = softplus(δ)
	dlu []T       // (N·T)×E: Δ·u
	sd  []T       // (N·T)×E: sigmoid(δ), dΔ/dδ
	sz  []T       // (N·T)×E: sigmoid(z)
	yp  []T       // (N·T)×E: C·h + D·u, before the gate
	// Per-worker scratch, sliced by work.
	ws [][]T
	// Per-sequence partial gradients of Alog (E×S) and D (E), summed in a fixed order.
	part []T
	// use is the path asked for (scan_chan.go; zero: the fastest): tests and benchmarks
	// compare them.
	use scanPath
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

// scanWork is one worker's scratch for one sequence (L tokens, E channels, state S).
type scanWork[T Float] struct {
	hist, dec []T // L×S: one channel's states h_t and decays exp(Δ_t·A); the forward pass uses row 0
	h0, dh    []T // S: the zero state; the state gradient
	sa        []T // L×E: the backward pass's Σ gh·hp·ev·a
	// The AVX-512 lane kernels' (lanes path only, else empty): L+1 blocks of 1024 (scanLanesBack)
	// and A with its gradient for sixteen channels (512).
	blk, apa []T
}

// scratch grows every worker's scratch to fit L tokens, E channels and state S on path p.
func (k *scanKernel[T]) scratch(p scanPath, L, E, S int) {
	if w := max(1, k.p.Workers); len(k.ws) < w {
		k.ws = append(k.ws, make([][]T, w-len(k.ws))...)
	}
	for i := range k.ws {
		k.ws[i] = grow(k.ws[i], 2*L*S+2*S+L*E+lanesScratch(p, L))
	}
}

// work slices worker w's scratch (scratch sized it for path p) and zeroes its h0.
func (k *scanKernel[T]) work(p scanPath, w, L, E, S int) scanWork[T] {
	ls, ws := L*S, k.ws[w]
	zero(ws[2*ls : 2*ls+S])
	o := 2*ls + 2*S + L*E
	wk := scanWork[T]{hist: ws[:ls], dec: ws[ls : 2*ls], h0: ws[2*ls : 2*ls+S], dh: ws[2*ls+S : 2*ls+2*S], sa: ws[2*ls+2*S : o]}
	if n := lanesScratch(p, L); n > 0 {
		wk.blk, wk.apa = ws[o:o+n-2*lanes*lanes], ws[o+n-2*lanes*lanes:o+n]
	}
	return wk
}

func (k *scanKernel[T]) forward(in []*tensor.Dense, out *tensor.Dense) float64 {
	u, dr, alog, bm, cm, dv, z, y := data[T](in[0]), data[T](in[1]), data[T](in[2]), data[T](in[3]),
		data[T](in[4]), data[T](in[5]), data[T](in[6]), data[T](out)
	m, e := rows2(in[0].Shape())
	S := len(alog) / e
	L := k.t
	k.a, k.dl, k.yp, k.dlu = grow(k.a, e*S), grow(k.dl, m*e), grow(k.yp, m*e), grow(k.dlu, m*e)
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
		mulArr(k.dlu[lo*e:hi*e], k.dl[lo*e:hi*e], u[lo*e:hi*e])
	})
	path := resolve[T](k.use, S)
	if path == scanAVX512 {
		k.al = lanesA(k.al, as32(k.ae), e)
	}
	k.scratch(path, L, e, S)
	k.p.Each(m/L, func(w, q int) {
		wk := k.work(path, w, L, e, S)
		o := q * L * e
		// The readout C·h goes to yp, the gate below.
		if path == scanAVX512 {
			scanLanes(k.al, as32(bm[q*L*S:]), as32(cm[q*L*S:]), as32(k.dl[o:]), as32(k.dlu[o:]), as32(k.yp[o:]), L, e)
		}
		for c := 0; c < e && path != scanAVX512; c++ {
			h := wk.hist[:S]
			zero(h)
			scanChan(path, h, h, wk.dec[:S], 0, k.ae[c*S:(c+1)*S], bm[q*L*S:], cm[q*L*S:],
				k.dl[o+c:], k.dlu[o+c:], k.yp[o+c:], L, e, S)
		}
		// yp += D·u; y = yp·z·σ(z).
		for r := q * L; r < (q+1)*L; r++ {
			mulAddArr(k.yp[r*e:(r+1)*e], dv[:e], u[r*e:(r+1)*e])
		}
		sq := o + L*e
		mulArr(y[o:sq], k.yp[o:sq], z[o:sq])
		mulArr(y[o:sq], y[o:sq], k.sz[o:sq])
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
	k.part = grow(k.part, n*(es+e))
	a, path := k.a, resolve[T](k.use, S)
	if path == scanAVX512 {
		k.aa = lanesA(k.aa, as32(a), e)
	}
	k.scratch(path, L, e, S)
	k.p.Each(n, func(w, q int) {
		wk := k.work(path, w, L, e, S)
		pa := k.part[q*(es+e) : (q+1)*(es+e)]
		zero(pa)
		pA, pD := pa[:es], pa[es:]
		b, cr := bm[q*L*S:(q+1)*L*S], cm[q*L*S:(q+1)*L*S]
		db, dc := dbm[q*L*S:(q+1)*L*S], dcm[q*L*S:(q+1)*L*S]
		zero(db)
		zero(dc)
		o := q * L * e
		// dyp = g·z·σ(z) (held in du until the end), dz and dD.
		sq := o + L*e
		mulArr(du[o:sq], gy[o:sq], z[o:sq])
		mulArr(du[o:sq], du[o:sq], k.sz[o:sq])
		mulArr(dz[o:sq], gy[o:sq], k.yp[o:sq])
		siluBackArr(dz[o:sq], dz[o:sq], z[o:sq], k.sz[o:sq])
		for r := q * L; r < (q+1)*L; r++ {
			mulAddArr(pD, du[r*e:(r+1)*e], u[r*e:(r+1)*e])
		}
		if path == scanAVX512 {
			scanLanesBack(wk.blk, wk.apa, k.al, k.aa, as32(pA), as32(b), as32(cr), as32(du[o:]), as32(k.dl[o:]),
				as32(k.dlu[o:]), as32(ddr[o:]), as32(wk.sa), as32(db), as32(dc), L, e)
		}
		for c := 0; c < e && path != scanAVX512; c++ {
			// Replay the channel's states h_t (h_{−1} = 0) and decays, without the readout, then
			// run back: Σ gh·b to ddr, Σ gh·hp·ev·a to sa.
			ac := k.ae[c*S : (c+1)*S]
			scanChan(path, wk.hist, wk.h0, wk.dec, S, ac, b, cr, k.dl[o+c:], k.dlu[o+c:], nil, L, e, S)
			zero(wk.dh)
			scanChanBack(path, wk.dh, pA[c*S:(c+1)*S], dc, db, wk.hist, wk.h0, wk.dec, a[c*S:(c+1)*S], b, cr,
				du[o+c:], k.dl[o+c:], k.dlu[o+c:], ddr[o+c:], wk.sa[c:], L, e, S)
		}
		// du = dyp·D + Δ·ΣB, dΔ-input = (u·ΣB + ΣA)·σ(δ), ΣB held in ddr.
		for r := q * L; r < (q+1)*L; r++ {
			sar := wk.sa[(r-q*L)*e : (r-q*L+1)*e]
			dur, ddrr := du[r*e:(r+1)*e], ddr[r*e:(r+1)*e]
			mulArr(dur, dur, dv[:e])
			mulAddArr(dur, k.dl[r*e:(r+1)*e], ddrr)
			mulAddArr(sar, u[r*e:(r+1)*e], ddrr)
			mulArr(ddrr, sar, k.sd[r*e:(r+1)*e])
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
