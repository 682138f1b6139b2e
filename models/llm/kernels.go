package llm

import (
	"math"

	"windtunnel/backends/par"
)

// norm sets dst (rows × len(w)) to the LayerNorm (with bias b, possibly nil) or RMSNorm of
// src's rows, as the model's configuration says; dst may be src.
func (m *Model) norm(dst, src []float32, rows int, w, b []float32) {
	n := len(w)
	eps := m.Config.NormEps
	rms := m.Config.RMSNorm
	m.pool.Rows(rows, 16, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			x, y := src[r*n:(r+1)*n], dst[r*n:(r+1)*n]
			var mean float64
			if !rms {
				for _, v := range x {
					mean += float64(v)
				}
				mean /= float64(n)
			}
			var ss float64
			for _, v := range x {
				d := float64(v) - mean
				ss += d * d
			}
			inv := 1 / math.Sqrt(ss/float64(n)+eps)
			for j, v := range x {
				z := float32((float64(v) - mean) * inv)
				z *= w[j]
				if b != nil {
					z += b[j]
				}
				y[j] = z
			}
		}
	})
}

// activate applies the activation act to x in place.
func activate(act string, x []float32) {
	switch act {
	case GELU:
		for i, v := range x {
			f := float64(v)
			x[i] = float32(0.5 * f * (1 + math.Erf(f/math.Sqrt2)))
		}
	case GELUTanh:
		const k = 0.7978845608028654 // √(2/π)
		for i, v := range x {
			f := float64(v)
			x[i] = float32(0.5 * f * (1 + math.Tanh(k*(f+0.044715*f*f*f))))
		}
	case SiLU:
		for i, v := range x {
			f := float64(v)
			x[i] = float32(f / (1 + math.Exp(-f)))
		}
	}
}

// swiglu sets up[i] = silu(gate[i]) · up[i].
func swiglu(up, gate []float32) {
	for i, g := range gate {
		f := float64(g)
		up[i] = float32(f/(1+math.Exp(-f))) * up[i]
	}
}

// add3 sets x += a (+ b when b is not nil).
func add3(p *par.Pool, x, a, b []float32) {
	p.Rows(len(x), 8192, func(lo, hi int) {
		if b == nil {
			for i := lo; i < hi; i++ {
				x[i] += a[i]
			}
			return
		}
		for i := lo; i < hi; i++ {
			x[i] += a[i] + b[i]
		}
	})
}

// softmaxCausal replaces row[lo..r] by its softmax and zeroes the rest of the row.
func softmaxCausal(row []float32, lo, r int) {
	mx := float32(math.Inf(-1))
	for _, v := range row[lo : r+1] {
		mx = max(mx, v)
	}
	var sum float64
	for j := lo; j <= r; j++ {
		e := math.Exp(float64(row[j] - mx))
		row[j] = float32(e)
		sum += e
	}
	inv := float32(1 / sum)
	for j := lo; j <= r; j++ {
		row[j] *= inv
	}
	clear(row[:lo])
	clear(row[r+1:])
}
