package accel

import (
	"math"
)

// hostArgs reads a launch's arguments in order, collecting the first bounds error.
type hostArgs struct {
	h    *Host
	args []any
	i    int
	err  error
}

func (a *hostArgs) ptr() Ptr       { v := a.args[a.i].(Ptr); a.i++; return v }
func (a *hostArgs) int() int       { v := a.args[a.i].(int32); a.i++; return int(v) }
func (a *hostArgs) float() float32 { v := a.args[a.i].(float32); a.i++; return v }

// fs returns the n floats at p (nil for a null p when nullable).
func (a *hostArgs) fs(p Ptr, n int, nullable bool) []float32 {
	if p.IsNil() && nullable {
		return nil
	}
	s, err := a.h.f(p, n)
	if err != nil && a.err == nil {
		a.err = err
	}
	if s == nil {
		s = make([]float32, n)
	}
	return s
}

// is returns the n ints at p (nil for a null p when nullable).
func (a *hostArgs) is(p Ptr, n int, nullable bool) []int32 {
	if p.IsNil() && nullable {
		return nil
	}
	s, err := a.h.ints(p, n)
	if err != nil && a.err == nil {
		a.err = err
	}
	if s == nil {
		s = make([]int32, n)
	}
	return s
}

// kernel adapts a Go kernel to the launch table: its arguments' bounds are checked before
// it runs (by fs and is), and it runs only if they all hold.
func kernel(h *Host, body func(a *hostArgs) func()) func([]any) error {
	return func(args []any) error {
		a := &hostArgs{h: h, args: args}
		run := body(a)
		if a.err != nil {
			return a.err
		}
		run()
		return nil
	}
}

// hostKernels returns the Go version of every kernel in the catalogue.
func hostKernels(h *Host) map[string]func([]any) error {
	k := func(body func(a *hostArgs) func()) func([]any) error { return kernel(h, body) }
	return map[string]func([]any) error{
		"wt_fill": k(func(a *hostArgs) func() {
			yp, v, n := a.ptr(), a.float(), a.int()
			y := a.fs(yp, n, false)
			return func() {
				for i := range y {
					y[i] = v
				}
			}
		}),
		"wt_copy": k(func(a *hostArgs) func() {
			yp, xp, n := a.ptr(), a.ptr(), a.int()
			y, x := a.fs(yp, n, false), a.fs(xp, n, false)
			return func() { copy(y, x) }
		}),
		"wt_add": k(func(a *hostArgs) func() {
			yp, ap, bp, n := a.ptr(), a.ptr(), a.ptr(), a.int()
			y, x1, x2 := a.fs(yp, n, false), a.fs(ap, n, false), a.fs(bp, n, false)
			return func() {
				for i := range y {
					y[i] = x1[i] + x2[i]
				}
			}
		}),
		"wt_scale": k(func(a *hostArgs) func() {
			yp, xp, s, n := a.ptr(), a.ptr(), a.float(), a.int()
			y, x := a.fs(yp, n, false), a.fs(xp, n, false)
			return func() {
				for i := range y {
					y[i] = s * x[i]
				}
			}
		}),
		"wt_embed_fwd": k(hostEmbed(false)),
		"wt_embed_bwd": k(hostEmbed(true)),
		"wt_rms_fwd":   k(hostRMSForward),
		"wt_rms_bwd":   k(hostRMSBackward),
		"wt_bias_act":  k(hostBiasAct),
		"wt_gelu_bwd":  k(hostGELUBackward),
		"wt_colsum":    k(hostColSum),
		"wt_attn_fwd":  k(hostAttnForward),
		"wt_attn_bwd":  k(hostAttnBackward),
		"wt_ce_fwd":    k(hostCEForward),
		"wt_ce_bwd":    k(hostCEBackward),
		"wt_sum":       k(hostSum(false)),
		"wt_sumsq":     k(hostSum(true)),
		"wt_adamw":     k(hostAdamW),
	}
}

// maxID is the largest row a table indexed by ids can need: the tables' sizes are not
// arguments, so the bound is found from the ids themselves.
func maxID(ids []int32) int {
	m := 0
	for _, v := range ids {
		m = max(m, int(v))
	}
	return m
}

func hostEmbed(backward bool) func(a *hostArgs) func() {
	return func(a *hostArgs) func() {
		p0, p1, p2, idp, rows, t, d := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.int(), a.int(), a.int()
		ids := a.is(idp, rows, false)
		if a.err != nil {
			return nil
		}
		vocab, tt := maxID(ids)+1, min(t, rows)
		if backward {
			dtok, dpos, g := a.fs(p0, vocab*d, false), a.fs(p1, tt*d, false), a.fs(p2, rows*d, false)
			return func() {
				for r, id := range ids {
					for j := 0; j < d; j++ {
						dtok[int(id)*d+j] += g[r*d+j]
						dpos[(r%t)*d+j] += g[r*d+j]
					}
				}
			}
		}
		y, tok, pos := a.fs(p0, rows*d, false), a.fs(p1, vocab*d, false), a.fs(p2, tt*d, false)
		return func() {
			for r, id := range ids {
				for j := 0; j < d; j++ {
					y[r*d+j] = tok[int(id)*d+j] + pos[(r%t)*d+j]
				}
			}
		}
	}
}

// srcRows is the gather map of an RMSNorm launch (identity when null) and the input's rows.
func srcRows(a *hostArgs, p Ptr, rows int) ([]int32, int) {
	src := a.is(p, rows, true)
	if src == nil {
		return nil, rows
	}
	return src, maxID(src) + 1
}

func hostRMSForward(a *hostArgs) func() {
	yp, rp, xp, gp, sp, rows, d, eps := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.int(), a.int(), a.float()
	src, in := srcRows(a, sp, rows)
	y, rinv, x, g := a.fs(yp, rows*d, false), a.fs(rp, rows, false), a.fs(xp, in*d, false), a.fs(gp, d, false)
	return func() {
		for r := 0; r < rows; r++ {
			s := r
			if src != nil {
				s = int(src[r])
			}
			xr := x[s*d : (s+1)*d]
			var ss float32
			for _, v := range xr {
				ss += v * v
			}
			inv := 1 / float32(math.Sqrt(float64(ss/float32(d)+eps)))
			rinv[r] = inv
			for j, v := range xr {
				y[r*d+j] = v * inv * g[j]
			}
		}
	}
}

func hostRMSBackward(a *hostArgs) func() {
	dxp, dgp, gyp, xp, gp, rp, sp, rows, d := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.int(), a.int()
	src, in := srcRows(a, sp, rows)
	dx, dg, gy := a.fs(dxp, in*d, false), a.fs(dgp, d, false), a.fs(gyp, rows*d, false)
	x, g, rinv := a.fs(xp, in*d, false), a.fs(gp, d, false), a.fs(rp, rows, false)
	return func() {
		for r := 0; r < rows; r++ {
			s := r
			if src != nil {
				s = int(src[r])
			}
			xr, gr, inv := x[s*d:(s+1)*d], gy[r*d:(r+1)*d], rinv[r]
			var dot float32
			for j := range xr {
				dot += g[j] * gr[j] * xr[j]
			}
			c := dot * inv * inv * inv / float32(d)
			for j := range xr {
				dx[s*d+j] = inv*g[j]*gr[j] - xr[j]*c
				dg[j] += gr[j] * xr[j] * inv
			}
		}
	}
}

const (
	geluC      = 0.7978845608028654 // √(2/π), the tanh form's
	invSqrt2Pi = 0.3989422804014327 // 1/√(2π), the exact form's φ
)

func hostBiasAct(a *hostArgs) func() {
	yp, pp, tp, bp, gb, rows, o, act := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.float(), a.int(), a.int(), a.int()
	n := rows * o
	y, b := a.fs(yp, n, false), a.fs(bp, o, true)
	var pre, th []float32
	if act != 0 {
		pre, th = a.fs(pp, n, false), a.fs(tp, n, false)
	}
	return func() {
		for i, u := range y {
			if b != nil {
				u += gb * b[i%o]
			}
			switch act {
			case int(ActGELUTanh):
				t := float32(math.Tanh(float64(geluC * (u + 0.044715*u*u*u))))
				pre[i], th[i] = u, t
				u = 0.5 * u * (1 + t)
			case int(ActGELUErf):
				p := float32(0.5 * (1 + math.Erf(float64(u)/math.Sqrt2)))
				pre[i], th[i] = u, p
				u *= p
			}
			y[i] = u
		}
	}
}

func hostGELUBackward(a *hostArgs) func() {
	dpp, gp, pp, tp, s, n, act := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.float(), a.int(), a.int()
	dp, g, pre, th := a.fs(dpp, n, false), a.fs(gp, n, false), a.fs(pp, n, false), a.fs(tp, n, false)
	return func() {
		for i := range dp {
			u, t := pre[i], th[i]
			if act == int(ActGELUErf) {
				dp[i] = s * g[i] * (t + u*float32(invSqrt2Pi*math.Exp(-0.5*float64(u)*float64(u))))
				continue
			}
			dp[i] = s * g[i] * (0.5*(1+t) + 0.5*u*(1-t*t)*geluC*(1+3*0.044715*u*u))
		}
	}
}

func hostColSum(a *hostArgs) func() {
	dbp, gp, rows, o := a.ptr(), a.ptr(), a.int(), a.int()
	db, g := a.fs(dbp, o, false), a.fs(gp, rows*o, false)
	return func() {
		for j := range db {
			var s float32
			for r := 0; r < rows; r++ {
				s += g[r*o+j]
			}
			db[j] = s
		}
	}
}

func hostSum(squares bool) func(a *hostArgs) func() {
	return func(a *hostArgs) func() {
		op, xp := a.ptr(), a.ptr()
		s := float32(1)
		if !squares {
			s = a.float()
		}
		n := a.int()
		out, x := a.fs(op, 1, false), a.fs(xp, n, false)
		return func() {
			var acc float64
			for _, v := range x {
				if squares {
					acc += float64(v) * float64(v)
				} else {
					acc += float64(v)
				}
			}
			out[0] += s * float32(acc)
		}
	}
}

func hostAdamW(a *hostArgs) func() {
	wp, mp, vp, gp, lp, sp, n := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.int()
	lr, b1, b2, eps, decay, clip, bc1, bc2 := a.float(), a.float(), a.float(), a.float(), a.float(), a.float(), a.float(), a.float()
	w, m, v, g, lrm, sq := a.fs(wp, n, false), a.fs(mp, n, false), a.fs(vp, n, false), a.fs(gp, n, false), a.fs(lp, n, false), a.fs(sp, 1, false)
	return func() {
		norm := float32(math.Sqrt(float64(sq[0])))
		sc := float32(1)
		if clip > 0 && norm > clip {
			sc = clip / (norm + 1e-6)
		}
		for i := range w {
			gi := g[i] * sc
			mi := b1*m[i] + (1-b1)*gi
			vi := b2*v[i] + (1-b2)*gi*gi
			m[i], v[i] = mi, vi
			plr := lr * lrm[i]
			w[i] = w[i]*(1-plr*decay) - plr*(mi/bc1)/(float32(math.Sqrt(float64(vi/bc2)))+eps)
		}
	}
}
