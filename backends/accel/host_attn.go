package accel

import "math"

func hostAttnForward(a *hostArgs) func() {
	op, pp, qp, kp, vp, mp := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr()
	n, t, h, d, ld, scale := a.int(), a.int(), a.int(), a.int(), a.int(), a.float()
	m, mq := n*t*d, strided(n*t, d, ld)
	o, p, q, k, v, mask := a.fs(op, m, false), a.fs(pp, n*h*t*t, false), a.fs(qp, mq, false), a.fs(kp, mq, false), a.fs(vp, mq, false), a.fs(mp, h, false)
	hd := d / max(h, 1)
	return func() {
		for item := 0; item < n*h; item++ {
			b, hh := item/h, item%h
			off, oo := b*t*ld+hh*hd, b*t*d+hh*hd
			pm := p[item*t*t : (item+1)*t*t]
			for i := 0; i < t; i++ {
				pr := pm[i*t : (i+1)*t]
				qi := q[off+i*ld : off+i*ld+hd]
				mx := float32(-math.MaxFloat32)
				for j := 0; j <= i; j++ {
					kj := k[off+j*ld : off+j*ld+hd]
					var s float32
					for c, qv := range qi {
						s += qv * kj[c]
					}
					s *= scale
					pr[j] = s
					mx = max(mx, s)
				}
				var sum float32
				for j := 0; j <= i; j++ {
					e := float32(math.Exp(float64(pr[j] - mx)))
					pr[j] = e
					sum += e
				}
				inv := 1 / sum
				for j := 0; j <= i; j++ {
					pr[j] *= inv
				}
				clear(pr[i+1:])
				for c := 0; c < hd; c++ {
					var s float32
					for j := 0; j <= i; j++ {
						s += pr[j] * v[off+j*ld+c]
					}
					o[oo+i*d+c] = mask[hh] * s
				}
			}
		}
	}
}

func hostAttnBackward(a *hostArgs) func() {
	dqp, dkp, dvp, dsp, pp, qp, kp, vp, gp, mp := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr()
	n, t, h, d, ld, scale := a.int(), a.int(), a.int(), a.int(), a.int(), a.float()
	m, mq, pt := n*t*d, strided(n*t, d, ld), n*h*t*t
	dq, dk, dv, ds := a.fs(dqp, mq, false), a.fs(dkp, mq, false), a.fs(dvp, mq, false), a.fs(dsp, pt, false)
	p, q, k, v, g, mask := a.fs(pp, pt, false), a.fs(qp, mq, false), a.fs(kp, mq, false), a.fs(vp, mq, false), a.fs(gp, m, false), a.fs(mp, h, false)
	hd := d / max(h, 1)
	return func() {
		for item := 0; item < n*h; item++ {
			b, hh := item/h, item%h
			off, oo := b*t*ld+hh*hd, b*t*d+hh*hd
			mh := mask[hh]
			pm, dm := p[item*t*t:(item+1)*t*t], ds[item*t*t:(item+1)*t*t]
			for i := 0; i < t; i++ {
				gi := g[oo+i*d : oo+i*d+hd]
				var dot float32
				for j := 0; j <= i; j++ {
					vj := v[off+j*ld : off+j*ld+hd]
					var s float32
					for c, gv := range gi {
						s += gv * vj[c]
					}
					s *= mh
					dm[i*t+j] = s
					dot += pm[i*t+j] * s
				}
				for j := 0; j <= i; j++ {
					dm[i*t+j] = pm[i*t+j] * (dm[i*t+j] - dot)
				}
				for c := 0; c < hd; c++ {
					var s float32
					for j := 0; j <= i; j++ {
						s += dm[i*t+j] * k[off+j*ld+c]
					}
					dq[off+i*ld+c] = scale * s
				}
			}
			for j := 0; j < t; j++ {
				for c := 0; c < hd; c++ {
					var sk, sv float32
					for i := j; i < t; i++ {
						sk += dm[i*t+j] * q[off+i*ld+c]
						sv += pm[i*t+j] * g[oo+i*d+c]
					}
					dk[off+j*ld+c] = scale * sk
					dv[off+j*ld+c] = mh * sv
				}
			}
		}
	}
}

func hostCEForward(a *hostArgs) func() {
	lp, pp, xp, tp, sp, rows, o, off, c := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.int(), a.int(), a.int(), a.int()
	loss, prob, x := a.fs(lp, rows, false), a.fs(pp, rows*o, false), a.fs(xp, rows*o, false)
	soft := a.fs(sp, rows*c, true)
	var tgt []int32
	if soft == nil {
		tgt = a.is(tp, rows, false)
	}
	return func() {
		for r := 0; r < rows; r++ {
			xr, pr := x[r*o:(r+1)*o], prob[r*o:(r+1)*o]
			mx := float32(-math.MaxFloat32)
			for _, v := range xr {
				mx = max(mx, v)
			}
			var s float32
			for j, v := range xr {
				e := float32(math.Exp(float64(v - mx)))
				pr[j] = e
				s += e
			}
			inv, lse := 1/s, float32(math.Log(float64(s)))
			for j := range pr {
				pr[j] *= inv
			}
			var l float32
			if soft != nil {
				for j, w := range soft[r*c : (r+1)*c] {
					if w > 0 {
						l -= w * (xr[off+j] - mx - lse)
					}
				}
			} else {
				l = -(xr[off+int(tgt[r])] - mx - lse)
			}
			loss[r] = l
		}
	}
}

func hostCEBackward(a *hostArgs) func() {
	dxp, pp, tp, sp, gs, rows, o, off, c := a.ptr(), a.ptr(), a.ptr(), a.ptr(), a.float(), a.int(), a.int(), a.int(), a.int()
	dx, prob := a.fs(dxp, rows*o, false), a.fs(pp, rows*o, false)
	soft := a.fs(sp, rows*c, true)
	var tgt []int32
	if soft == nil {
		tgt = a.is(tp, rows, false)
	}
	return func() {
		sc := gs / float32(rows)
		for r := 0; r < rows; r++ {
			for j := 0; j < o; j++ {
				y := sc * prob[r*o+j]
				if cc := j - off; cc >= 0 && cc < c {
					if soft != nil {
						y -= sc * soft[r*c+cc]
					} else if int(tgt[r]) == cc {
						y -= sc
					}
				}
				dx[r*o+j] = y
			}
		}
	}
}

// strided is the extent of rows rows of w values ld apart: (rows−1)·ld + w (0 without rows).
func strided(rows, w, ld int) int {
	if rows == 0 {
		return 0
	}
	return (rows-1)*ld + w
}
