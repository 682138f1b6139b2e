package models

// Declarations of the selective-scan kernels: the channel kernels of scan_amd64.s (AVX2 and
// FMA; call them only when haveAVX2, with s a positive multiple of 8) and the lane kernels of
// scan512_amd64.s (AVX-512, a state of 16; only when haveAVX512).

// scanFwdChan is scanChan's loop for one channel over l tokens (hs and st in floats): ev =
// 2^max(dl·ae, −124), h = ev·hp + dlu·b, y = Σ c·h at each token.
//
//go:noescape
func scanFwdChan(h, h0, ev *float32, hs int, ae, b, c, dl, dlu, y *float32, l, st, s int)

// scanBackChan is scanChanBack's loop: scanStepBack at each of l tokens, the last first,
// with token t's dyp, Δ and Δ·u at offset t·st of dyp, dl and dlu, and its Σ gh·b and
// Σ gh·hp·ev·a written there in sb and sa.
//
//go:noescape
func scanBackChan(dh, pa, dc, db, h, h0, ev, a, b, c, dyp, dl, dlu, sb, sa *float32, l, st, s int)

// scanFwdLanes16 is the forward scan of sixteen channels at once, one a lane (those in
// mask), with a state of 16 and the readout: l tokens, Δ, Δ·u and y at offset t·st of dl,
// dlu and y, a_j (A·log2(e) of the sixteen channels) at 16·j of ae, b and c rows of 16.
//
//go:noescape
func scanFwdLanes16(y, ae, b, c, dl, dlu *float32, l, st, mask int)

// scanReplayLanes16 is scanFwdLanes16 without the readout, keeping token t's states h_j
// and decays ev_j at 16·j and 256 + 16·j of its block (1024 floats at 1024·t of blk).
//
//go:noescape
func scanReplayLanes16(blk, ae, b, dl, dlu *float32, l, st, mask int)

// scanBackLanes16 is scanBackChan for sixteen channels at once (the lanes in mask) over the
// blocks scanReplayLanes16 wrote at blk+1024 (blk's first 256 floats zero: h_{−1}): a_j (A
// of the lanes' channels) at 16·j of apa, their dL/da_j / a_j added at 256 + 16·j; token
// t's dyp·h_j and g·Δu added to its block at 512 + 16·j and 768 + 16·j (summed over the
// lanes by scanSums16 for dC and dB); its Σ g·b and Σ g·hp·ev·a at offset t·st of sb, sa.
//
//go:noescape
func scanBackLanes16(apa, blk, b, c, dyp, dl, dlu, sb, sa *float32, l, st, mask int)

// scanSums16 writes the row sums of n 16×16 blocks, stride floats apart from src, to
// dst[16·i : 16·i+16] for block i.
//
//go:noescape
func scanSums16(dst, src *float32, n, stride int)

// sigmoidVec is sigmoidArr's float32 loop eight lanes at a time, for i < n − n mod 8.
//
//go:noescape
func sigmoidVec(dst, x *float32, n int)

// softplusSigmoidVec is softplusSigmoidArr's float32 loop eight lanes at a time, for
// i < n − n mod 8.
//
//go:noescape
func softplusSigmoidVec(sp, sg, x *float32, n int)
