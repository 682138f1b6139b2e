package models

// Declarations of the selective-scan row kernels in scan_amd64.s (AVX2 and FMA; call them
// only when haveAVX2, with s a positive multiple of 8).

// scanFwdRow advances one token row of the scan: for each channel k < e, with its s lanes at
// offset k·s of h, hp, ev and ae, ev = 2^max(dl[k]·ae, −124), h = ev·hp + dl[k]·u[k]·b and
// acc[k] = Σ c·h (h may be hp).
//
//go:noescape
func scanFwdRow(h, hp, ev, ae, b, c, dl, u, acc *float32, e, s int)

// scanReplayRow replays one token row from kept decays: h = ev·hp + du[k]·b for each
// channel k < e.
//
//go:noescape
func scanReplayRow(h, hp, ev, b, du *float32, e, s int)

// scanBackRow is scanStepBack for the e channels of one token row; sc holds four floats a
// channel (dyp, Δ, Δ·u on entry) and receives Σ gh·b and Σ gh·hp·ev·a in slots 2 and 3.
//
//go:noescape
func scanBackRow(dh, pa, dc, db, h, hp, ev, a, b, c, sc *float32, e, s int)

// sigmoidVec is sigmoidArr's float32 loop eight lanes at a time, for i < n − n mod 8.
//
//go:noescape
func sigmoidVec(dst, x *float32, n int)

// softplusSigmoidVec is softplusSigmoidArr's float32 loop eight lanes at a time, for
// i < n − n mod 8.
//
//go:noescape
func softplusSigmoidVec(sp, sg, x *float32, n int)
