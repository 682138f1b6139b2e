package models

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The J-lens pass over one sequence: a forward pass keeping what the reverse passes need,
// then, for each later position p′, the adjoints of the C class logits at p′ carried back
// through every block over positions 0..p′ (C rows a position), their Grams added at the
// sites and scored positions before p′.

// seqWork is one worker's forward cache and reverse buffers.
type seqWork[T Float] struct {
	x, a, q, k, v, o, x2, bn, u [][]T // [layer] T×d (u T×f): block input, norm1, Q, K, V, attention, x + attention, norm2, MLP pre-activation
	gp                          [][]T // [layer] T×f: GELU′(u)
	r1, r2                      [][]T // [layer] T: the two norms' 1/rms
	al                          [][]T // [layer] H×T×T: attention weights (row i, columns ≤ i)
	xl, rf                      []T   // the last block's output T×d and its 1/rms
	g, dx2, dh, do, dq, dk, dv  []T   // reverse buffers, position-major: (j·C + c)·width
	da                          []T
	gram                        [][]float64 // [site·P + k] d×d, this sequence's
	blk                         []float64   // C×d widened for the Gram update
	dp, tr                      []T         // attention scratch: T×T, hd×T
	bump                        *residualBump
}

// residualBump adds h to entry k of the residual stream at a site and position in the
// forward pass (the finite-difference check of the J-lens).
type residualBump struct {
	site, pos, k int
	h            float64
}

func (sn *seqNet[T]) newWork(T0, cells int) *seqWork[T] {
	d, f, c, L := sn.d, sn.f, sn.c, len(sn.layers)
	w := &seqWork[T]{}
	mat := func(n int) [][]T {
		out := make([][]T, L)
		for l := range out {
			out[l] = make([]T, n)
		}
		return out
	}
	w.x, w.a, w.q, w.k, w.v, w.o, w.x2, w.bn = mat(T0*d), mat(T0*d), mat(T0*d), mat(T0*d), mat(T0*d), mat(T0*d), mat(T0*d), mat(T0*d)
	w.u, w.gp, w.r1, w.r2, w.al = mat(T0*f), mat(T0*f), mat(T0), mat(T0), mat(sn.heads*T0*T0)
	w.dp, w.tr = make([]T, T0*T0), make([]T, sn.hd*T0)
	w.xl, w.rf = make([]T, T0*d), make([]T, T0)
	n := T0 * c * d
	w.g, w.dx2, w.do, w.dq, w.dk, w.dv, w.da = make([]T, n), make([]T, n), make([]T, n), make([]T, n), make([]T, n), make([]T, n), make([]T, n)
	w.dh = make([]T, T0*c*f)
	for range cells {
		w.gram = append(w.gram, make([]float64, d*d))
	}
	w.blk = make([]float64, c*d)
	return w
}

// rmsInvT is rmsInv of x with normEps, its squares summed in float64.
func rmsInvT[T Float](x []T) T {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return T(rmsInv(s, len(x), normEps))
}

// forward runs the transformer over one sequence's tokens, keeping every block's values.
func (sn *seqNet[T]) forward(w *seqWork[T], toks []int) {
	d, f, H, hd := sn.d, sn.f, sn.heads, sn.hd
	T0 := len(toks)
	x := w.x[0]
	for j, id := range toks {
		for k := 0; k < d; k++ {
			x[j*d+k] = sn.tok[id*d+k] + sn.pos[j*d+k]
		}
	}
	if w.bump != nil && w.bump.site == SiteEmbed {
		x[w.bump.pos*d+w.bump.k] += T(w.bump.h)
	}
	scale := 1 / math.Sqrt(float64(hd))
	sc := make([]float64, T0)
	for l := range sn.layers {
		ly := &sn.layers[l]
		x, a, r1 := w.x[l], w.a[l], w.r1[l]
		for j := 0; j < T0; j++ {
			r1[j] = rmsInvT(x[j*d : (j+1)*d])
			for k := 0; k < d; k++ {
				a[j*d+k] = x[j*d+k] * r1[j] * ly.norm1[k]
			}
		}
		mm(sn.be, false, false, T0, d, d, 1, a, d, ly.wq, d, 0, w.q[l], d)
		mm(sn.be, false, false, T0, d, d, 1, a, d, ly.wk, d, 0, w.k[l], d)
		mm(sn.be, false, false, T0, d, d, 1, a, d, ly.wv, d, 0, w.v[l], d)
		q, kk, v, o, al := w.q[l], w.k[l], w.v[l], w.o[l], w.al[l]
		clear(o[:T0*d])
		for h := 0; h < H; h++ {
			lo := h * hd
			for i := 0; i < T0; i++ {
				mx := math.Inf(-1)
				for j := 0; j <= i; j++ {
					var s float64
					for e := 0; e < hd; e++ {
						s += float64(q[i*d+lo+e]) * float64(kk[j*d+lo+e])
					}
					sc[j] = s * scale
					mx = max(mx, sc[j])
				}
				var sum float64
				for j := 0; j <= i; j++ {
					sc[j] = math.Exp(sc[j] - mx)
					sum += sc[j]
				}
				row := al[(h*T0+i)*T0:][:T0]
				for j := 0; j <= i; j++ {
					row[j] = T(sc[j] / sum)
					wgt := row[j] * T(ly.mask[h])
					for e := 0; e < hd; e++ {
						o[i*d+lo+e] += wgt * v[j*d+lo+e]
					}
				}
			}
		}
		x2 := w.x2[l]
		copy(x2, x[:T0*d])
		mm(sn.be, false, false, T0, d, d, ly.gateA, o, d, ly.wo, d, 1, x2, d)
		bn, r2 := w.bn[l], w.r2[l]
		for j := 0; j < T0; j++ {
			r2[j] = rmsInvT(x2[j*d : (j+1)*d])
			for k := 0; k < d; k++ {
				bn[j*d+k] = x2[j*d+k] * r2[j] * ly.norm2[k]
			}
		}
		u := w.u[l]
		for j := 0; j < T0; j++ {
			copy(u[j*f:(j+1)*f], ly.b1)
		}
		mm(sn.be, false, false, T0, f, d, 1, bn, d, ly.w1, f, 1, u, f)
		gl, gp := w.dh[:T0*f], w.gp[l] // scratch: GELU(u); and GELU′(u), kept
		for i, uv := range u[:T0*f] {
			gl[i], gp[i] = gelu(sn.act, uv)
		}
		next := w.xl
		if l+1 < len(sn.layers) {
			next = w.x[l+1]
		}
		for j := 0; j < T0; j++ {
			for k := 0; k < d; k++ {
				next[j*d+k] = x2[j*d+k] + ly.gateM*ly.b2[k]
			}
		}
		mm(sn.be, false, false, T0, d, f, ly.gateM, gl, f, ly.w2, d, 1, next, d)
		if w.bump != nil && w.bump.site == l {
			next[w.bump.pos*d+w.bump.k] += T(w.bump.h)
		}
	}
	for j := 0; j < T0; j++ {
		w.rf[j] = rmsInvT(w.xl[j*d : (j+1)*d])
	}
}

// gelu is GELU(u) and d GELU / du in the form act names (actGELU: the tanh approximation;
// actGELUErf: the exact form), as the model's kernels compute them.
func gelu[T Float](act activation, u T) (T, T) {
	if act == actGELUErf {
		return geluErf(u)
	}
	t := geluTanh(u)
	return geluOf(u, t), geluGradOf(u, t)
}

// logitsAt returns the class logits at position j of the last forward pass.
func (sn *seqNet[T]) logitsAt(w *seqWork[T], j int) []float64 {
	d := sn.d
	out := make([]float64, sn.c)
	for c := range out {
		var s float64
		for k := 0; k < d; k++ {
			s += float64(w.xl[j*d+k]*w.rf[j]*sn.norm[k]) * float64(sn.out[c*d+k])
		}
		out[c] = s
	}
	return out
}

// rmsBackRows maps the adjoints dy of n rows (of d) of y = x·r·g, x one row, to those of x,
// adding them to dst (beta 1) or writing them (beta 0).
func rmsBackRows[T Float](x []T, r T, g, dy, dst []T, n, d int, add bool) {
	for row := 0; row < n; row++ {
		dyr, dr := dy[row*d:(row+1)*d], dst[row*d:(row+1)*d]
		var s float64
		for k := 0; k < d; k++ {
			s += float64(x[k]) * float64(g[k]) * float64(dyr[k])
		}
		c := T(float64(r) * float64(r) * float64(r) * s / float64(d))
		for k := 0; k < d; k++ {
			v := r*g[k]*dyr[k] - x[k]*c
			if add {
				dr[k] += v
			} else {
				dr[k] = v
			}
		}
	}
}

// reverse adds to w.gram, for every later position p′, the Grams of the adjoints of the class
// logits at p′ at each site and scored position before p′.
func (sn *seqNet[T]) reverse(w *seqWork[T], sites, positions []int) {
	d, f, C, H, hd, L := sn.d, sn.f, sn.c, sn.heads, sn.hd, len(sn.layers)
	T0 := len(w.rf)
	P := len(positions)
	siteIdx := map[int]int{}
	for si, s := range sites {
		siteIdx[s] = si
	}
	scale := T(1 / math.Sqrt(float64(hd)))
	_ = H
	// accumulate adds the Grams at site si of the positions before pp; before first the
	// adjoints are zero (the buffer holds another target's there).
	accumulate := func(si, first, pp int) {
		for k, i := range positions {
			if i >= pp {
				break
			}
			if i < first {
				continue
			}
			blk := w.g[i*C*d : (i+1)*C*d]
			for e, v := range blk {
				w.blk[e] = float64(v)
			}
			a := blas64.General{Rows: C, Cols: d, Stride: d, Data: w.blk}
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, a, a, 1, blas64.General{Rows: d, Cols: d, Stride: d, Data: w.gram[si*P+k]})
		}
	}
	for pp := 1; pp < T0; pp++ {
		if P == 0 || positions[0] >= pp {
			continue
		}
		// The adjoints of the logits at pp through the final norm: C rows at position pp.
		first := pp
		rmsBackRows(w.xl[pp*d:(pp+1)*d], w.rf[pp], sn.norm, sn.out, w.g[pp*C*d:], C, d, false)
		for l := L - 1; l >= 0; l-- {
			if si, ok := siteIdx[l]; ok {
				accumulate(si, first, pp)
			}
			ly := &sn.layers[l]
			base, rows := first*C*d, (pp+1-first)*C
			g := w.g[base : (pp+1)*C*d]
			// MLP: out = x2 + gM·(GELU(u)·W2 + b2), u = norm2(x2)·W1 + b1.
			dh := w.dh[first*C*f : (pp+1)*C*f]
			mm(sn.be, false, true, rows, f, d, ly.gateM, g, d, ly.w2, d, 0, dh, f)
			for j := first; j <= pp; j++ {
				gj := w.gp[l][j*f : (j+1)*f]
				for c := 0; c < C; c++ {
					dr := w.dh[(j*C+c)*f:][:f]
					for e, gv := range gj {
						dr[e] *= gv
					}
				}
			}
			dbn := w.da[base : (pp+1)*C*d]
			mm(sn.be, false, true, rows, d, f, 1, dh, f, ly.w1, f, 0, dbn, d)
			copy(w.dx2[base:(pp+1)*C*d], g)
			for j := first; j <= pp; j++ {
				rmsBackRows(w.x2[l][j*d:(j+1)*d], w.r2[l][j], ly.norm2, w.da[j*C*d:], w.dx2[j*C*d:], C, d, true)
			}
			// Attention: x2 = x + gA·(o·Wo), o_i = Σ_j α_ij·mask·v_j.
			mm(sn.be, false, true, rows, d, d, ly.gateA, w.dx2[base:], d, ly.wo, d, 0, w.do[base:], d)
			clear(w.do[:base]) // no adjoint before first (the buffer holds another target's)
			t := pp + 1
			for h := 0; h < H; h++ {
				lo, mk := h*hd, T(ly.mask[h])
				for c := 0; c < C; c++ {
					at := c*d + lo // row j of this class and head: j·C·d + at
					if mk == 0 {
						for j := 0; j < t; j++ {
							r := j*C*d + at
							clear(w.dq[r : r+hd])
							clear(w.dk[r : r+hd])
							clear(w.dv[r : r+hd])
						}
						continue
					}
					sn.attnBack(w, t, T0, mk, scale, w.al[l][h*T0*T0:], w.q[l][lo:], w.k[l][lo:], w.v[l][lo:],
						w.do[at:], w.dq[at:], w.dk[at:], w.dv[at:])
				}
			}
			rowsAll := (pp + 1) * C
			mm(sn.be, false, true, rowsAll, d, d, 1, w.dq, d, ly.wq, d, 0, w.da, d)
			mm(sn.be, false, true, rowsAll, d, d, 1, w.dk, d, ly.wk, d, 1, w.da, d)
			mm(sn.be, false, true, rowsAll, d, d, 1, w.dv, d, ly.wv, d, 1, w.da, d)
			// The block's input: the residual path (dx2, zero before first) and norm1's.
			clear(w.g[:base])
			copy(w.g[base:(pp+1)*C*d], w.dx2[base:(pp+1)*C*d])
			for j := 0; j <= pp; j++ {
				rmsBackRows(w.x[l][j*d:(j+1)*d], w.r1[l][j], ly.norm1, w.da[j*C*d:], w.g[j*C*d:], C, d, true)
			}
			first = 0
		}
		if si, ok := siteIdx[SiteEmbed]; ok {
			accumulate(si, 0, pp)
		}
	}
}

// attnBack maps the adjoints of one head's output, o = mk·α·v over positions 0..t−1, to those
// of q, k and v, for one class's adjoint rows (stride C·d in do, dq, dk, dv; q, k and v
// stride d; α stride T0, zero above the diagonal); dq, dk and dv are overwritten.
func (sn *seqNet[T]) attnBack(w *seqWork[T], t, T0 int, mk, scale T, al, q, k, v, do, dq, dk, dv []T) {
	d, hd, ld := sn.d, sn.hd, sn.c*sn.d
	dp := w.dp[:t*t]
	if is32[T]() && haveAVX2 {
		vt := as32(w.tr[:hd*t])
		transpose32(vt, as32(v), d, t, hd)
		smm(triCols, false, t, t, hd, float32(mk), as32(do), ld, vt, t, as32(dp), t)
		smm(triUpper, true, t, hd, t, float32(mk), as32(al), T0, as32(do), ld, as32(dv), ld)
		for i := 0; i < t; i++ {
			softmaxBack(&as32(al[i*T0:])[0], &as32(dp[i*t:])[0], i+1)
			clear(dp[i*t+i+1 : (i+1)*t]) // triLower reads up to the end of each 4-row block
		}
		smm(triLower, false, t, hd, t, float32(scale), as32(dp), t, as32(k), d, as32(dq), ld)
		smm(triUpper, true, t, hd, t, float32(scale), as32(dp), t, as32(q), d, as32(dk), ld)
		return
	}
	mm(sn.be, false, true, t, t, hd, mk, do, ld, v, d, 0, dp, t)
	mm(sn.be, true, false, t, hd, t, mk, al, T0, do, ld, 0, dv, ld)
	for i := 0; i < t; i++ {
		pr, dr := al[i*T0:i*T0+i+1], dp[i*t:(i+1)*t]
		var s T
		for j, pv := range pr {
			s += pv * dr[j]
		}
		for j, pv := range pr {
			dr[j] = pv * (dr[j] - s)
		}
		clear(dr[i+1:])
	}
	mm(sn.be, false, false, t, hd, t, scale, dp, t, k, d, 0, dq, ld)
	mm(sn.be, true, false, t, hd, t, scale, dp, t, q, d, 0, dk, ld)
}
