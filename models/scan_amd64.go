package models

// Declarations of the selective-scan channel kernels in scan_amd64.s (AVX2 and FMA; call them
// only when haveAVX2, with s a positive multiple of 8).

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

// scanFwd16 is scanFwdChan for s = 16 with AVX-512, the state in a register: bit for bit but
// for the order of the readout's sum.
//
//go:noescape
func scanFwd16(h, h0, ev *float32, hs int, ae, b, c, dl, dlu, y *float32, l, st int)

// scanFwdLanes16 is the forward scan of sixteen channels at once, one a lane (those in
// mask), with a state of 16 and the readout: l tokens, Δ, Δ·u and y at offset t·st of dl,
// dlu and y, a_j (A·log2(e) of the sixteen channels) at 16·j of ae, b and c rows of 16.
//
//go:noescape
func scanFwdLanes16(y, ae, b, c, dl, dlu *float32, l, st, mask int)

// scanBack16 is scanBackChan for s = 16 with AVX-512, dh and pa in registers: bit for bit but
// for the order of the two sums.
//
//go:noescape
func scanBack16(dh, pa, dc, db, h, h0, ev, a, b, c, dyp, dl, dlu, sb, sa *float32, l, st int)

// sigmoidVec is sigmoidArr's float32 loop eight lanes at a time, for i < n − n mod 8.
//
//go:noescape
func sigmoidVec(dst, x *float32, n int)

// softplusSigmoidVec is softplusSigmoidArr's float32 loop eight lanes at a time, for
// i < n − n mod 8.
//
//go:noescape
func softplusSigmoidVec(sp, sg, x *float32, n int)
