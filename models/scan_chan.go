package models

// The selective scan of one sequence: in float32 with a state size of 16 on the AVX-512 lane
// kernels of scan512_amd64.s, sixteen channels at once (scanLanes, scanLanesBack); else one
// channel over the sequence at a time (scanKernel runs the channels one after the other), on
// the AVX2 kernels of scan_amd64.s with a multiple of 8, else on the portable loops of
// scanStep and scanStepBack, the same arithmetic.

// scanPath is the code a scan runs on.
type scanPath int

const (
	scanBest     scanPath = iota // the fastest that the CPU, T and the state size allow
	scanPortable                 // the portable loops
	scanAVX2                     // the AVX2 kernels, eight lanes at a time
	scanAVX512                   // the AVX-512 lane kernels, sixteen channels at once (state 16)
)

// resolve is the path that runs for element type T and state size s when p is asked for: p
// itself where it can run, else the fastest of those below it that can.
func resolve[T Float](p scanPath, s int) scanPath {
	ok := func(q scanPath) bool { return p == scanBest || p >= q }
	switch {
	case !is32[T]() || p == scanPortable || s <= 0:
		return scanPortable
	case ok(scanAVX512) && haveAVX512 && s == 16:
		return scanAVX512
	case ok(scanAVX2) && haveAVX2 && s%8 == 0:
		return scanAVX2
	}
	return scanPortable
}

// p32 is the address of s[0] as a *float32 (s is float32 data; the callers check is32).
func p32[T Float](s []T) *float32 { return &as32(s)[0] }

// scanChan runs one channel forward (p not scanAVX512: the lane kernels run whole sequences) over L tokens: h_t = ev_t·h_{t−1} + Δu_t·b_t with
// ev_t = exp(Δ_t·A) (a: A·log2(e) in float32, A in float64; see scanStep) and h_{−1} = h0;
// h_t and ev_t at offset t·hs of h and ev (hs = 0: each overwrites the last, and h may be
// h0), and y[t·st] = c_t·h_t unless y is nil. Δ_t and Δu_t are dl[t·st] and dlu[t·st]; b_t
// and c_t rows t of b and c (S wide). p is the path (resolved).
func scanChan[T Float](p scanPath, h, h0, ev []T, hs int, a, b, c, dl, dlu, y []T, L, st, S int) {
	n := (L-1)*st + 1
	last := (L-1)*hs + S
	h, ev, b, c, dl, dlu, a, h0 = h[:last], ev[:last], b[:L*S], c[:L*S], dl[:n], dlu[:n], a[:S], h0[:S]
	var yp *float32 // y's address for the kernels, nil for none
	if y != nil {
		y = y[:n]
		if p != scanPortable {
			yp = p32(y)
		}
	}
	switch p {
	case scanAVX2:
		scanFwdChan(p32(h), p32(h0), p32(ev), hs, p32(a), p32(b), p32(c), p32(dl), p32(dlu), yp, L, st, S)
		return
	}
	hp := h0
	for t := 0; t < L; t++ {
		o, i := t*hs, t*st
		ht := h[o : o+S]
		if y == nil {
			scanStep(ht, hp, ev[o:o+S], a, b[t*S:(t+1)*S], dl[i], dlu[i], nil)
		} else {
			y[i] = scanStep(ht, hp, ev[o:o+S], a, b[t*S:(t+1)*S], dl[i], dlu[i], c[t*S:(t+1)*S])
		}
		hp = ht
	}
}

// scanChanBack runs one channel back over the L tokens scanChan replayed into h and ev
// (offset t·S each; h_{−1} = h0): scanStepBack at each token, last first, with dh the state
// gradient (zero on entry), pa the channel's dL/dA / A, dc and db the sequence's gradients of
// C and B (L×S, added to). Token t's dyp, Δ and Δ·u are at offset t·st of dyp, dl and dlu;
// its Σ gh·b and Σ gh·hp·ev·a are written there in sb and sa.
func scanChanBack[T Float](p scanPath, dh, pa, dc, db, h, h0, ev, a, b, c, dyp, dl, dlu, sb, sa []T, L, st, S int) {
	ls, n := L*S, (L-1)*st+1
	dh, pa, dc, db, h, h0, ev, a, b, c = dh[:S], pa[:S], dc[:ls], db[:ls], h[:ls], h0[:S], ev[:ls], a[:S], b[:ls], c[:ls]
	dyp, dl, dlu, sb, sa = dyp[:n], dl[:n], dlu[:n], sb[:n], sa[:n]
	switch p {
	case scanAVX2:
		scanBackChan(p32(dh), p32(pa), p32(dc), p32(db), p32(h), p32(h0), p32(ev), p32(a), p32(b), p32(c),
			p32(dyp), p32(dl), p32(dlu), p32(sb), p32(sa), L, st, S)
		return
	}
	for t := L - 1; t >= 0; t-- {
		o, i, hp := t*S, t*st, h0
		if t > 0 {
			hp = h[o-S : o]
		}
		sb[i], sa[i] = scanStepBack(dh, pa, dc[o:o+S], db[o:o+S], h[o:o+S], hp, ev[o:o+S], a, b[o:o+S], c[o:o+S], dyp[i], dl[i], dlu[i])
	}
}

// lanes is the group of sixteen channels scanFwdLanes16 runs at once (a state of 16).
const lanes = 16

// lanesA lays out ae (E×16: A·log2(e) by channel and state, float32) for scanFwdLanes16 in
// dst: group g of sixteen channels at 256·g, its state j's sixteen values at 16·j (zero
// past channel E).
func lanesA(dst, ae []float32, e int) []float32 {
	g := (e + lanes - 1) / lanes
	if cap(dst) < g*lanes*lanes {
		dst = make([]float32, g*lanes*lanes)
	}
	dst = dst[:g*lanes*lanes]
	zero(dst)
	for c := 0; c < e; c++ {
		for j := 0; j < lanes; j++ {
			dst[(c/lanes*lanes+j)*lanes+c%lanes] = ae[c*lanes+j]
		}
	}
	return dst
}

// scanLanes runs one sequence forward (L tokens, E channels, a state of 16) on the AVX-512
// lane kernel, sixteen channels at a time, with the readout: y[t·E+c] = c_t·h_t of channel c,
// its Δ and Δ·u at dl[t·E+c] and dlu[t·E+c], b_t and c_t rows t of b and c; al is lanesA's.
func scanLanes(al, b, c, dl, dlu, y []float32, L, e int) {
	n := L * e
	al, b, c, dl, dlu, y = al[:(e+lanes-1)/lanes*lanes*lanes], b[:L*lanes], c[:L*lanes], dl[:n], dlu[:n], y[:n]
	for c0 := 0; c0 < e; c0 += lanes {
		mask := 1<<min(lanes, e-c0) - 1
		scanFwdLanes16(&y[c0], &al[c0*lanes], &b[0], &c[0], &dl[c0], &dlu[c0], L, e, mask)
	}
}

// lanesScratch is the per-worker scratch of scanLanesBack on path p for L tokens: L+1
// blocks of 1024 and 512 (none off the lanes path).
func lanesScratch(p scanPath, L int) int {
	if p != scanAVX512 {
		return 0
	}
	return (L+1)*4*lanes*lanes + 2*lanes*lanes
}

// scanLanesBack runs one sequence back (L tokens, E channels, a state of 16) on the AVX-512
// lane kernels, sixteen channels at a time: each group's states and decays replayed into
// blk (scanReplayLanes16), then scanBackLanes16 over them, adding its dL/dA / A to pA (E×16)
// and writing Σ gh·b and Σ gh·hp·ev·a to sb and sa (at t·E+c, as dyp, dl, dlu); dc and db
// (L×16) get the sums over the channels of dyp·h and gh·Δu. al and aa are lanesA's of
// A·log2(e) and A; blk and apa the worker's scratch (lanesScratch).
func scanLanesBack[T Float](blk, apa []T, al, aa, pA, b, c, dyp, dl, dlu, sb, sa, db, dc []float32, L, e int) {
	const blkN = 4 * lanes * lanes // a token's block: h, ev, dyp·h, gh·Δu, sixteen by sixteen each
	n := L * e
	bk, ap := as32(blk[:(L+1)*blkN]), as32(apa[:2*lanes*lanes])
	b, c, dyp, dl, dlu, sb, sa = b[:L*lanes], c[:L*lanes], dyp[:n], dl[:n], dlu[:n], sb[:n], sa[:n]
	zero(bk[:lanes*lanes]) // h_{−1}
	for t := 1; t <= L; t++ {
		zero(bk[t*blkN+2*lanes*lanes : (t+1)*blkN])
	}
	for c0 := 0; c0 < e; c0 += lanes {
		w := min(lanes, e-c0)
		copy(ap, aa[c0*lanes:(c0+lanes)*lanes])
		zero(ap[lanes*lanes:])
		scanReplayLanes16(&bk[blkN], &al[c0*lanes], &b[0], &dl[c0], &dlu[c0], L, e, 1<<w-1)
		scanBackLanes16(&ap[0], &bk[0], &b[0], &c[0], &dyp[c0], &dl[c0], &dlu[c0], &sb[c0], &sa[c0], L, e, 1<<w-1)
		for l := 0; l < w; l++ {
			for j := 0; j < lanes; j++ {
				pA[(c0+l)*lanes+j] += ap[lanes*lanes+j*lanes+l]
			}
		}
	}
	scanSums16(&dc[0], &bk[blkN+2*lanes*lanes], L, blkN)
	scanSums16(&db[0], &bk[blkN+3*lanes*lanes], L, blkN)
}
