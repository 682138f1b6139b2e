//go:build !amd64

package models

// Stubs of the assembly kernels off amd64: haveAVX2 is false there, so no caller reaches them.

// haveAVX2 is false off amd64: the portable paths run.
const haveAVX2 = false

// haveAVX512 is false off amd64.
const haveAVX512 = false

func smm4x16(k int, a *float32, ars, aps int, b *float32, ldb int, c *float32, ldc int, nc int, alpha float32) {
	panic("models: smm4x16 without AVX2")
}

func smm1x16(k int, a *float32, aps int, b *float32, ldb int, c *float32, nc int, alpha float32) {
	panic("models: smm1x16 without AVX2")
}

func transpose8x8(dst *float32, ldd int, src *float32, lds int) {
	panic("models: transpose8x8 without AVX2")
}

func tanhVec(dst, src *float32, n int)                { panic("models: tanhVec without AVX2") }
func expSum(x *float32, n int, shift float32) float32 { panic("models: expSum without AVX2") }
func geluFwd(y, b, pre *float32, n int, gain float32) { panic("models: geluFwd without AVX2") }
func geluBwd(dp, gout, pre *float32, n int)           { panic("models: geluBwd without AVX2") }
func geluFwd512(y, b, pre *float32, n int, gain float32) {
	panic("models: geluFwd512 without AVX-512")
}
func geluBwd512(dp, gout, pre *float32, n int) { panic("models: geluBwd512 without AVX-512") }
func geluErfFwd(y, b, d *float32, n int, gain float32) {
	panic("models: geluErfFwd without AVX2")
}
func geluErfFwd512(y, b, d *float32, n int, gain float32) {
	panic("models: geluErfFwd512 without AVX-512")
}

func softmaxRow(x *float32, n int) float32 { panic("models: softmaxRow without AVX2") }
func softmaxBack(p, dp *float32, n int)    { panic("models: softmaxBack without AVX2") }

func sumSq(x *float32, n int) float32                 { panic("models: sumSq without AVX2") }
func scaleMul(y, x, gamma *float32, n int, s float32) { panic("models: scaleMul without AVX2") }
func rmsBackDot(x, dy, gamma, acc *float32, n int, inv float32) float32 {
	panic("models: rmsBackDot without AVX2")
}
func rmsBackDx(dx, x, dy, gamma *float32, n int, inv, c float32) {
	panic("models: rmsBackDx without AVX2")
}

func addVec(dst, src *float32, n int)     { panic("models: addVec without AVX2") }
func mulVec(dst, a, b *float32, n int)    { panic("models: mulVec without AVX2") }
func mulAddVec(dst, a, b *float32, n int) { panic("models: mulAddVec without AVX2") }
func siluBackVec(dst, gr, x, s *float32, n int) {
	panic("models: siluBackVec without AVX2")
}

func scanFwdChan(h, h0, ev *float32, hs int, ae, b, c, dl, dlu, y *float32, l, st, s int) {
	panic("models: scanFwdChan without AVX2")
}
func scanBackChan(dh, pa, dc, db, h, h0, ev, a, b, c, dyp, dl, dlu, sb, sa *float32, l, st, s int) {
	panic("models: scanBackChan without AVX2")
}
func scanFwdLanes16(y, ae, b, c, dl, dlu *float32, l, st, mask int) {
	panic("models: scanFwdLanes16 without AVX-512")
}
func scanReplayLanes16(blk, ae, b, dl, dlu *float32, l, st, mask int) {
	panic("models: scanReplayLanes16 without AVX-512")
}
func scanBackLanes16(apa, blk, b, c, dyp, dl, dlu, sb, sa *float32, l, st, mask int) {
	panic("models: scanBackLanes16 without AVX-512")
}
func scanSums16(dst, src *float32, n, stride int) { panic("models: scanSums16 without AVX-512") }
func sigmoidVec(dst, x *float32, n int)           { panic("models: sigmoidVec without AVX2") }
func softplusSigmoidVec(sp, sg, x *float32, n int) {
	panic("models: softplusSigmoidVec without AVX2")
}
