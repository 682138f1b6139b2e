package llm

import (
	"math"

	"gonum.org/v1/gonum/blas"
)

// offsets returns where query head h, and key and value head g, start within a row of st.qkv.
func (m *Model) offsets(h, g int) (qo, ko, vo int) {
	c := m.Config
	d := c.HeadDim
	if m.layers[0].qkv != nil { // GPT-NeoX: per head, q k v
		return 3 * d * h, 3*d*g + d, 3*d*g + 2*d
	}
	q, kv := c.Heads*d, c.KVHeads*d
	return h * d, q + g*d, q + kv + g*d
}

// gatherKV copies the keys and values out of st.qkv, head-major.
func (m *Model) gatherKV(st *state, k, v []float32) {
	c := m.Config
	d, kv := c.HeadDim, c.KVHeads*c.HeadDim
	for r := range st.ch.Rows() {
		row := st.qkv[r*st.width : (r+1)*st.width]
		for g := range c.KVHeads {
			_, ko, vo := m.offsets(g*(c.Heads/c.KVHeads), g)
			copy(k[r*kv+g*d:r*kv+(g+1)*d], row[ko:ko+d])
			copy(v[r*kv+g*d:r*kv+(g+1)*d], row[vo:vo+d])
		}
	}
}

// scatterV writes values back into st.qkv.
func (m *Model) scatterV(st *state, v []float32) {
	c := m.Config
	d, kv := c.HeadDim, c.KVHeads*c.HeadDim
	for r := range st.ch.Rows() {
		row := st.qkv[r*st.width : (r+1)*st.width]
		for g := range c.KVHeads {
			_, _, vo := m.offsets(g*(c.Heads/c.KVHeads), g)
			copy(row[vo:vo+d], v[r*kv+g*d:r*kv+(g+1)*d])
		}
	}
}

// rotary returns cos and sin of position·inv_freq for positions 0..t−1, t × RotaryDim/2.
func (m *Model) rotary(t int) (cos, sin []float32) {
	half := len(m.invFreq)
	cos, sin = make([]float32, t*half), make([]float32, t*half)
	for p := range t {
		for j, f := range m.invFreq {
			a := float64(p) * f
			cos[p*half+j], sin[p*half+j] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
	return cos, sin
}

// rope turns the first RotaryDim dimensions of every query and key head ("rotate half":
// pairs (j, j + RotaryDim/2)) by its position's angles.
func (m *Model) rope(st *state, cos, sin []float32) {
	c := m.Config
	half := c.RotaryDim / 2
	if half == 0 {
		return
	}
	ch := st.ch
	m.pool.Rows(len(ch.Seqs), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for r := ch.Start[i]; r < ch.Start[i+1]; r++ {
				p := r - ch.Start[i]
				cs, sn := cos[p*half:(p+1)*half], sin[p*half:(p+1)*half]
				row := st.qkv[r*st.width : (r+1)*st.width]
				turn := func(v []float32) {
					for j := range half {
						a, b := v[j], v[j+half]
						v[j] = a*cs[j] - b*sn[j]
						v[j+half] = b*cs[j] + a*sn[j]
					}
				}
				for h := range c.Heads {
					qo, _, _ := m.offsets(h, 0)
					turn(row[qo : qo+c.HeadDim])
				}
				for g := range c.KVHeads {
					_, ko, _ := m.offsets(0, g)
					turn(row[ko : ko+c.HeadDim])
				}
			}
		}
	})
}

// Attention is computed a block of query rows at a time, so that its scratch is O(T) per
// worker: at most attnScratch bytes of scores (whole t×t maps for t ≤ 1024), not t² floats.
const attnScratch = 4 << 20

// attnAlign is the alignment of the first key of a block when a sliding window lets it skip
// the keys before: the GEMM (gemm.Go) sums k in blocks of 256 from the first, so starting at
// a multiple of 256 keeps every sum's grouping, and the result bit-identical to a pass over
// all keys.
const attnAlign = 256

// attnRows is the number of query rows of one attention block for sequences of t tokens.
func attnRows(t int) int { return max(1, min(t, attnScratch/(4*t))) }

// attention computes every head's causal softmax attention for every sequence of the chunk
// into st.ctx (Rows × Heads·HeadDim), a block of query rows at a time into the worker's
// scores (attnRows(maxT) × maxT).
func (m *Model) attention(l int, st *state, taps *Taps, scores [][]float32) {
	c := m.Config
	ch := st.ch
	d := c.HeadDim
	group := c.Heads / c.KVHeads
	scale := float32(1 / math.Sqrt(float64(d)))
	q := c.Heads * d
	m.pool.Each(len(ch.Seqs)*c.Heads, func(w, item int) {
		i, h := item/c.Heads, item%c.Heads
		g := h / group
		a, t := ch.Start[i], ch.Start[i+1]-ch.Start[i]
		qo, ko, vo := m.offsets(h, g)
		rows := attnRows(t)
		// The last block first: its products are the widest, and the GEMM's packing buffers
		// sized for them then serve every smaller block (in increasing order each block
		// outgrew the last's and left it in the GEMM's pool: 0.25 GB over 32,000 tokens).
		for r0 := (t - 1) / rows * rows; r0 >= 0; r0 -= rows {
			r1 := min(t, r0+rows)
			n := r1 - r0
			k0 := 0 // the first key any row of the block sees
			if c.SlidingWindow > 0 {
				k0 = max(0, r0-c.SlidingWindow+1) / attnAlign * attnAlign
			}
			s := scores[w][:n*t]
			qb, kb := (a+r0)*st.width, (a+k0)*st.width
			m.small[w].Sgemm(blas.NoTrans, blas.Trans, n, r1-k0, d, scale, st.qkv[qb+qo:], st.width, st.qkv[kb+ko:], st.width, 0, s[k0:], t)
			for j := range n {
				r := r0 + j
				lo := 0
				if c.SlidingWindow > 0 {
					lo = max(0, r-c.SlidingWindow+1)
				}
				softmaxCausal(s[j*t:(j+1)*t], lo, r)
			}
			if taps != nil && taps.Attention != nil {
				taps.Attention(l, ch, i, h, r0, s, t)
			}
			m.small[w].Sgemm(blas.NoTrans, blas.NoTrans, n, d, r1-k0, 1, s[k0:], t, st.qkv[kb+vo:], st.width, 0, st.ctx[(a+r0)*q+h*d:], q)
		}
	})
}
