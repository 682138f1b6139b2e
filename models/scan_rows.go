package models

import (
	"gorgonia.org/tensor"
)

// The selective scan's float32 path on the AVX2 row kernels (scan_amd64.s): one call a token
// row, all channels of the row in contiguous memory, the same arithmetic as scanStep32,
// scanReplay and scanStepBack. The pointwise work around them (gates, D, du and dΔ) stays in
// Go, per row.

// p32 is the address of s[0] as a *float32 (s is float32 data; the callers check is32).
func p32[T Float](s []T) *float32 { return &as32(s)[0] }

// forwardRows runs sequence q's forward pass; ws is the worker's scratch (2·e·S + e).
func (k *scanKernel[T]) forwardRows(ws []T, q, e, S int, in []*tensor.Dense, out *tensor.Dense) {
	u, bm, cm, dv, z, y := data[T](in[0]), data[T](in[3]), data[T](in[4]), data[T](in[5]), data[T](in[6]), data[T](out)
	es := e * S
	hs, ev, acc := ws[:es], ws[es:2*es], ws[2*es:2*es+e]
	zero(hs)
	for s := 0; s < k.t; s++ {
		r := q*k.t + s
		if k.saved {
			ev = k.dec[r*es : (r+1)*es]
		}
		scanFwdRow(p32(hs), p32(hs), p32(ev), p32(k.ae), p32(bm[r*S:]), p32(cm[r*S:]), p32(k.dl[r*e:]), p32(u[r*e:]), p32(acc), e, S)
		for c := 0; c < e; c++ {
			i := r*e + c
			v := acc[c] + dv[c]*u[i]
			k.yp[i] = v
			y[i] = v * z[i] * k.sz[i]
		}
	}
}

// backwardRows runs sequence q's backward pass: the states replayed row by row, then the
// reverse steps; ws is the worker's scratch ((2L+2)·e·S + 5e).
func (k *scanKernel[T]) backwardRows(ws []T, q, e, S int, in []*tensor.Dense, gout *tensor.Dense, gin []*tensor.Dense) {
	u, bm, cm, dv, z, gy := data[T](in[0]), data[T](in[3]), data[T](in[4]), data[T](in[5]), data[T](in[6]), data[T](gout)
	du, ddr, dbm, dcm, dz := data[T](gin[0]), data[T](gin[1]), data[T](gin[3]), data[T](gin[4]), data[T](gin[6])
	L, es := k.t, e*S
	hist, dec, dh, h0 := ws[:L*es], ws[L*es:2*L*es], ws[2*L*es:(2*L+1)*es], ws[(2*L+1)*es:(2*L+2)*es]
	sc, dur := ws[(2*L+2)*es:(2*L+2)*es+4*e], ws[(2*L+2)*es+4*e:(2*L+2)*es+5*e]
	if k.saved {
		dec = k.dec[q*L*es : (q+1)*L*es]
	}
	zero(h0)
	pa := k.part[q*(es+e) : (q+1)*(es+e)]
	zero(pa)
	pA, pD := pa[:es], pa[es:]
	for s := 0; s < L; s++ {
		r := q*L + s
		hr, er, hp := hist[s*es:(s+1)*es], dec[s*es:(s+1)*es], h0
		if s > 0 {
			hp = hist[(s-1)*es : s*es]
		}
		if k.saved {
			for c := 0; c < e; c++ {
				dur[c] = k.dl[r*e+c] * u[r*e+c]
			}
			scanReplayRow(p32(hr), p32(hp), p32(er), p32(bm[r*S:]), p32(dur), e, S)
		} else {
			// The decays are recomputed; the readout goes to scratch (c is any row).
			scanFwdRow(p32(hr), p32(hp), p32(er), p32(k.ae), p32(bm[r*S:]), p32(cm[r*S:]), p32(k.dl[r*e:]), p32(u[r*e:]), p32(dur), e, S)
		}
	}
	zero(dh)
	for s := L - 1; s >= 0; s-- {
		r := q*L + s
		dbr, dcr := dbm[r*S:(r+1)*S], dcm[r*S:(r+1)*S]
		zero(dbr)
		zero(dcr)
		hr, er, hp := hist[s*es:(s+1)*es], dec[s*es:(s+1)*es], h0
		if s > 0 {
			hp = hist[(s-1)*es : s*es]
		}
		for c := 0; c < e; c++ {
			i := r*e + c
			zv, sz, g := z[i], k.sz[i], gy[i]
			dyp := g * zv * sz
			dz[i] = g * k.yp[i] * sz * (1 + zv*(1-sz))
			pD[c] += dyp * u[i]
			sc[4*c], sc[4*c+1], sc[4*c+2] = dyp, k.dl[i], k.dl[i]*u[i]
		}
		scanBackRow(p32(dh), p32(pA), p32(dcr), p32(dbr), p32(hr), p32(hp), p32(er), p32(k.a), p32(bm[r*S:]), p32(cm[r*S:]), p32(sc), e, S)
		for c := 0; c < e; c++ {
			i := r*e + c
			sB, sA := sc[4*c+2], sc[4*c+3]
			du[i] = sc[4*c]*dv[c] + k.dl[i]*sB
			ddr[i] = (u[i]*sB + sA) * k.sd[i]
		}
	}
}
