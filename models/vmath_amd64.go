package models

// Declarations of the vector kernels in vmath_amd64.s, gelu_erf_amd64.s and rows_amd64.s
// (AVX2 and FMA; call them only when haveAVX2).

// tanhVec sets dst[i] = tanhf(src[i]) for i < n (dst may be src).
//
//go:noescape
func tanhVec(dst, src *float32, n int)

// expSum sets x[i] = expf(x[i] − shift) for i < n and returns their sum.
//
//go:noescape
func expSum(x *float32, n int, shift float32) float32

// geluFwd sets, for i < n, u = y[i] + gain·b[i], pre[i] = u and y[i] = 0.5·u·(1+t) with
// t = tanh(√(2/π)(u+0.044715u³)).
//
//go:noescape
func geluFwd(y, b, pre *float32, n int, gain float32)

// geluFwd512 is geluFwd sixteen lanes at a time (AVX-512), with the same results.
//
//go:noescape
func geluFwd512(y, b, pre *float32, n int, gain float32)

// geluBwd512 is geluBwd sixteen lanes at a time (AVX-512), with the same results.
//
//go:noescape
func geluBwd512(dp, gout, pre *float32, n int)

// geluBwd sets dp[i] = gout[i]·GELU′(pre[i]) for i < n, computing t again from pre (cheaper
// than storing and reloading it at these sizes: the pass is memory-bound).
//
//go:noescape
func geluBwd(dp, gout, pre *float32, n int)

// geluErfFwd sets, for i < n, u = y[i] + gain·b[i], y[i] = u·Φ(u) (the exact GELU) and
// d[i] = Φ(u) + u·φ(u) (its gradient, which the backward pass multiplies by the upstream one),
// with erfExp32's polynomials (gelu_erf_amd64.s).
//
//go:noescape
func geluErfFwd(y, b, d *float32, n int, gain float32)

// geluErfFwd512 is geluErfFwd sixteen lanes at a time (AVX-512), with the same results.
//
//go:noescape
func geluErfFwd512(y, b, d *float32, n int, gain float32)

// softmaxRow replaces x[:n] (n ≥ 1) by its softmax and returns Σ exp(x − max x).
//
//go:noescape
func softmaxRow(x *float32, n int) float32

// softmaxBack sets dp[i] = p[i]·(dp[i] − Σ_j p[j]·dp[j]) for i < n.
//
//go:noescape
func softmaxBack(p, dp *float32, n int)

// sumSq returns Σ x[i]² for i < n.
//
//go:noescape
func sumSq(x *float32, n int) float32

// scaleMul sets y[i] = x[i]·s·gamma[i] for i < n.
//
//go:noescape
func scaleMul(y, x, gamma *float32, n int, s float32)

// rmsBackDot adds dy[i]·x[i]·inv to acc[i] for i < n and returns Σ gamma[i]·dy[i]·x[i].
//
//go:noescape
func rmsBackDot(x, dy, gamma, acc *float32, n int, inv float32) float32

// rmsBackDx sets dx[i] = inv·gamma[i]·dy[i] − c·x[i] for i < n.
//
//go:noescape
func rmsBackDx(dx, x, dy, gamma *float32, n int, inv, c float32)

// addVec adds src[i] to dst[i] for i < n.
//
//go:noescape
func addVec(dst, src *float32, n int)

// mulVec sets dst[i] = a[i]·b[i] for i < n (dst may be a or b).
//
//go:noescape
func mulVec(dst, a, b *float32, n int)

// mulAddVec adds a[i]·b[i], rounded, to dst[i] for i < n.
//
//go:noescape
func mulAddVec(dst, a, b *float32, n int)

// siluBackVec sets dst[i] = gr[i]·s[i]·(1 + x[i]·(1 − s[i])) for i < n, rounding as Go does.
//
//go:noescape
func siluBackVec(dst, gr, x, s *float32, n int)
