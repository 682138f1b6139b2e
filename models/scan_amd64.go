package models

// Declarations of the selective-scan channel kernels in scan_amd64.s (AVX2 and FMA; call them
// only when haveAVX2, with s a positive multiple of 8).

// scanFwdChan is scanChan's loop for one channel over l tokens (hs and st in floats): ev =
// 2^max(dl·ae, −124), h = ev·hp + dlu·b, y = Σ c·h at each token.
//
//go:noescape
func scanFwdChan(h, h0, ev *float32, hs int, ae, b, c, dl, dlu, y *float32, l, st, s int)

// scanBackChan is scanChanBack's loop: scanStepBack at each of l tokens, the last first; sc
// holds four floats a token (dyp, Δ, Δ·u on entry) and receives Σ gh·b and Σ gh·hp·ev·a in
// slots 2 and 3.
//
//go:noescape
func scanBackChan(dh, pa, dc, db, h, h0, ev, a, b, c, sc *float32, l, s int)

// sigmoidVec is sigmoidArr's float32 loop eight lanes at a time, for i < n − n mod 8.
//
//go:noescape
func sigmoidVec(dst, x *float32, n int)

// softplusSigmoidVec is softplusSigmoidArr's float32 loop eight lanes at a time, for
// i < n − n mod 8.
//
//go:noescape
func softplusSigmoidVec(sp, sg, x *float32, n int)
