package models

// The selective scan of one channel over one sequence (scanKernel runs the channels one after
// the other): on the AVX2 channel kernels of scan_amd64.s in float32 with a state size that is
// a multiple of 8, else the portable loops of scanStep and scanStepBack, the same arithmetic.

// p32 is the address of s[0] as a *float32 (s is float32 data; the callers check is32).
func p32[T Float](s []T) *float32 { return &as32(s)[0] }

// scanChan runs one channel forward over L tokens: h_t = ev_t·h_{t−1} + Δu_t·b_t with
// ev_t = exp(Δ_t·A) (a: A·log2(e) in float32, A in float64; see scanStep) and h_{−1} = h0;
// h_t and ev_t at offset t·hs of h and ev (hs = 0: each overwrites the last, and h may be
// h0), and y[t·st] = c_t·h_t. Δ_t and Δu_t are dl[t·st] and dlu[t·st]; b_t and c_t rows t
// of b and c (S wide). vec takes the AVX2 kernel (see scanKernel.vec).
func scanChan[T Float](vec bool, h, h0, ev []T, hs int, a, b, c, dl, dlu, y []T, L, st, S int) {
	n := (L-1)*st + 1
	last := (L-1)*hs + S
	h, ev, b, c, dl, dlu, y, a, h0 = h[:last], ev[:last], b[:L*S], c[:L*S], dl[:n], dlu[:n], y[:n], a[:S], h0[:S]
	if vec {
		scanFwdChan(p32(h), p32(h0), p32(ev), hs, p32(a), p32(b), p32(c), p32(dl), p32(dlu), p32(y), L, st, S)
		return
	}
	hp := h0
	for t := 0; t < L; t++ {
		o, i := t*hs, t*st
		ht := h[o : o+S]
		y[i] = scanStep(ht, hp, ev[o:o+S], a, b[t*S:(t+1)*S], dl[i], dlu[i], c[t*S:(t+1)*S])
		hp = ht
	}
}

// scanChanBack runs one channel back over the L tokens scanChan replayed into h and ev
// (offset t·S each; h_{−1} = h0): scanStepBack at each token, last first, with dh the state
// gradient (zero on entry), pa the channel's dL/dA / A, dc and db the sequence's gradients of
// C and B (L×S, added to). sc holds four floats a token: dyp, Δ, Δ·u on entry; Σ gh·b and
// Σ gh·hp·ev·a are written to its slots 2 and 3.
func scanChanBack[T Float](vec bool, dh, pa, dc, db, h, h0, ev, a, b, c, sc []T, L, S int) {
	ls := L * S
	dh, pa, dc, db, h, h0, ev, a, b, c, sc = dh[:S], pa[:S], dc[:ls], db[:ls], h[:ls], h0[:S], ev[:ls], a[:S], b[:ls], c[:ls], sc[:4*L]
	if vec {
		scanBackChan(p32(dh), p32(pa), p32(dc), p32(db), p32(h), p32(h0), p32(ev), p32(a), p32(b), p32(c), p32(sc), L, S)
		return
	}
	for t := L - 1; t >= 0; t-- {
		o, hp := t*S, h0
		if t > 0 {
			hp = h[o-S : o]
		}
		sc[4*t+2], sc[4*t+3] = scanStepBack(dh, pa, dc[o:o+S], db[o:o+S], h[o:o+S], hp, ev[o:o+S], a, b[o:o+S], c[o:o+S], sc[4*t], sc[4*t+1], sc[4*t+2])
	}
}
