package llm

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"

	"windtunnel/models/hf"
)

// Chunk describes the sequences of one pass through the layers: their rows in the
// token-major matrices the taps see.
type Chunk struct {
	// Seqs are the indices of the chunk's sequences in the request.
	Seqs []int
	// Start[i] is the first row of sequence Seqs[i]; Start[len(Seqs)] is the number of rows.
	Start []int
	// Tokens are the token ids of the rows.
	Tokens []int
}

// Rows returns the number of rows (tokens) of the chunk.
func (c *Chunk) Rows() int { return c.Start[len(c.Start)-1] }

// Last returns the row of the last token of the chunk's i-th sequence.
func (c *Chunk) Last(i int) int { return c.Start[i+1] - 1 }

// Taps are optional callbacks that see, and may change, what the forward pass computes.
// Matrices are row-major, one row per token of the chunk.
type Taps struct {
	// Residual sees the residual stream entering layer l (Rows × Hidden); at l == Layers,
	// the final norm's output.
	Residual func(l int, c *Chunk, x []float32)
	// KV sees layer l's keys, before the rotary embedding, and values: Rows × KVHeads·HeadDim,
	// head-major within a row.
	KV func(l int, c *Chunk, k, v []float32)
	// EditValues may change layer l's values in place (same layout) before attention reads them.
	EditValues func(l int, c *Chunk, v []float32)
	// Attention sees head h's attention probabilities for the chunk's i-th sequence, rows
	// r0 … r0+len(p)/t−1 of its t×t map: p's row j the weights of query r0+j over keys
	// 0..r0+j (zeros after). The whole map comes in one call when t ≤ 1024; a longer
	// sequence's comes in blocks of rows, the last block first (the pass keeps O(t) of it
	// per worker).
	// It is called concurrently for distinct (i, h) and must not keep p.
	Attention func(l int, c *Chunk, i, h, r0 int, p []float32, t int)
}

// Request is a forward pass over a batch of token sequences.
type Request struct {
	Seqs [][]int
	// AllLogits asks for the logits at every position; otherwise at each sequence's last.
	AllLogits bool
	Taps      *Taps
	// Progress, when set, is called after each step with the steps done and the total.
	Progress func(done, total int)
	// ChunkTokens bounds the tokens of one pass (0: sized so activations stay near 256 MiB).
	ChunkTokens int
	// Start > 0 resumes at layer Start from Residual[i], sequence i's residual stream
	// entering that layer (len(Seqs[i])·Hidden values, as the Residual tap saw it): the
	// layers before are not run again.
	Start    int
	Residual [][]float32
}

// Result holds what a forward pass returns.
type Result struct {
	// Logits[i] holds sequence i's logits: Vocab values for its last position, or
	// len(Seqs[i])·Vocab (position-major) with AllLogits.
	Logits [][]float32
	// Hidden[i] is the final norm's output at sequence i's last position (Hidden values).
	Hidden [][]float32
}

// MaxTokens returns the longest sequence Forward accepts.
func (m *Model) MaxTokens() int { return min(m.Config.MaxPositions, 1<<15) }

// Forward runs the model on every sequence of req. Empty sequences, token ids outside the
// vocabulary and sequences longer than MaxTokens are errors; a cancelled ctx stops it
// between layers with ctx's error.
func (m *Model) Forward(ctx context.Context, req Request) (Result, error) {
	c := m.Config
	if len(req.Seqs) == 0 {
		return Result{}, fmt.Errorf("llm: forward: no sequences")
	}
	for i, s := range req.Seqs {
		if len(s) == 0 || len(s) > m.MaxTokens() {
			return Result{}, fmt.Errorf("llm: forward: sequence %d has %d tokens, want 1..%d", i, len(s), m.MaxTokens())
		}
		for _, t := range s {
			if t < 0 || t >= c.Vocab {
				return Result{}, fmt.Errorf("llm: forward: sequence %d: token %d outside the vocabulary [0, %d)", i, t, c.Vocab)
			}
		}
	}
	if req.Start < 0 || req.Start > c.Layers {
		return Result{}, fmt.Errorf("llm: forward: start layer %d outside [0, %d]", req.Start, c.Layers)
	}
	if req.Start > 0 {
		if len(req.Residual) != len(req.Seqs) {
			return Result{}, fmt.Errorf("llm: forward: %d residuals for %d sequences", len(req.Residual), len(req.Seqs))
		}
		for i, s := range req.Seqs {
			if len(req.Residual[i]) != len(s)*c.Hidden {
				return Result{}, fmt.Errorf("llm: forward: residual %d has %d values, want %d", i, len(req.Residual[i]), len(s)*c.Hidden)
			}
		}
	}
	chunks := m.plan(req)
	if m.available != nil {
		if avail, source := m.available(); avail > 0 {
			if need := m.memory(req, chunks); need.Total > avail {
				return Result{}, &MemoryError{Need: need, Available: avail, Source: source}
			}
		}
	}
	res := Result{Logits: make([][]float32, len(req.Seqs)), Hidden: make([][]float32, len(req.Seqs))}
	total, done := len(chunks)*(c.Layers-req.Start+1), 0
	for _, seqs := range chunks {
		if err := m.chunk(ctx, req, seqs, &res, func() {
			done++
			if req.Progress != nil {
				req.Progress(done, total)
			}
		}); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// plan cuts req's sequences into the chunks of one pass each: at most req.ChunkTokens tokens
// (0: sized so activations stay near 256 MiB), a longer sequence alone.
func (m *Model) plan(req Request) [][]int {
	c := m.Config
	budget := req.ChunkTokens
	if budget <= 0 {
		perToken := 4 * (4*c.Hidden + (c.Heads+2*c.KVHeads)*c.HeadDim + c.Heads*c.HeadDim + 2*c.Intermediate)
		budget = max(64, min(8192, (256<<20)/perToken))
	}
	var chunks [][]int
	var cur []int
	n := 0
	for i, s := range req.Seqs {
		if len(cur) > 0 && n+len(s) > budget {
			chunks, cur, n = append(chunks, cur), nil, 0
		}
		cur = append(cur, i)
		n += len(s)
	}
	return append(chunks, cur)
}

// state is the activations of one chunk.
type state struct {
	ch             *Chunk
	x, h, qkv, ctx []float32 // residual, normed, projections, attention output
	o, inter, gate []float32
	width          int // row length of qkv
	k, v           []float32
}

// chunk runs one chunk of sequences through every layer and the output head.
func (m *Model) chunk(ctx context.Context, req Request, seqs []int, res *Result, step func()) error {
	c := m.Config
	ch := &Chunk{Seqs: seqs, Start: make([]int, len(seqs)+1)}
	maxT := 0
	for i, s := range seqs {
		ch.Start[i+1] = ch.Start[i] + len(req.Seqs[s])
		ch.Tokens = append(ch.Tokens, req.Seqs[s]...)
		maxT = max(maxT, len(req.Seqs[s]))
	}
	N := ch.Rows()
	q, kv := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	st := &state{ch: ch, width: q + 2*kv}
	st.x = make([]float32, N*c.Hidden)
	st.h = make([]float32, N*c.Hidden)
	st.qkv = make([]float32, N*st.width)
	st.ctx = make([]float32, N*q)
	st.o = make([]float32, N*c.Hidden)
	st.inter = make([]float32, N*c.Intermediate)
	if c.Gated {
		st.gate = make([]float32, N*c.Intermediate)
	}
	if req.Start > 0 {
		for i, s := range seqs {
			copy(st.x[ch.Start[i]*c.Hidden:], req.Residual[s])
		}
	} else {
		m.pool.Rows(N, 64, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				t := ch.Tokens[r]
				if _, err := m.embed.Rows(t, t+1, st.x[r*c.Hidden:(r+1)*c.Hidden]); err != nil {
					m.fail(err) // ids were checked: the file changed under the run
					return
				}
			}
		})
	}
	cos, sin := m.rotary(maxT)
	scores := make([][]float32, m.pool.Workers)
	for w := range scores {
		scores[w] = make([]float32, attnRows(maxT)*maxT)
	}
	for l := req.Start; l < c.Layers; l++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := m.check(); err != nil {
			return err
		}
		if req.Taps != nil && req.Taps.Residual != nil {
			req.Taps.Residual(l, ch, st.x)
		}
		m.layer(l, st, req.Taps, cos, sin, scores)
		step()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := m.check(); err != nil {
		return err
	}
	m.output(req, st, res)
	if err := m.check(); err != nil {
		return err
	}
	step()
	return nil
}

// layer runs block l on the chunk's residual stream in place.
func (m *Model) layer(l int, st *state, taps *Taps, cos, sin []float32, scores [][]float32) {
	c := m.Config
	L := &m.layers[l]
	N := st.ch.Rows()
	q, kv := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	m.norm(st.h, st.x, N, L.ln1W, L.ln1B)
	if L.qkv != nil {
		m.linear(st.qkv, st.width, 0, st.h, N, L.qkv, L.qkvB)
	} else {
		m.linear(st.qkv, st.width, 0, st.h, N, L.q, L.qB)
		m.linear(st.qkv, st.width, q, st.h, N, L.k, L.kB)
		m.linear(st.qkv, st.width, q+kv, st.h, N, L.v, L.vB)
	}
	if taps != nil && (taps.KV != nil || taps.EditValues != nil) {
		if st.k == nil {
			st.k, st.v = make([]float32, N*kv), make([]float32, N*kv)
		}
		m.gatherKV(st, st.k, st.v)
		if taps.KV != nil {
			taps.KV(l, st.ch, st.k, st.v)
		}
		if taps.EditValues != nil {
			taps.EditValues(l, st.ch, st.v)
			m.scatterV(st, st.v)
		}
	}
	m.rope(st, cos, sin)
	m.attention(l, st, taps, scores)
	m.linear(st.o, c.Hidden, 0, st.ctx, N, L.o, L.oB)
	if c.ParallelResidual {
		in := st.h
		if !c.SharedNorm {
			m.norm(st.h, st.x, N, L.ln2W, L.ln2B) // the attention's input is no longer needed
		}
		m.mlp(st, in, L)
		add3(&m.pool, st.x, st.o, st.h) // mlp leaves its output in st.h
		return
	}
	add3(&m.pool, st.x, st.o, nil)
	m.norm(st.h, st.x, N, L.ln2W, L.ln2B)
	m.mlp(st, st.h, L)
	add3(&m.pool, st.x, st.h, nil)
}

// mlp computes the block's MLP of in (Rows × Hidden) into st.h.
func (m *Model) mlp(st *state, in []float32, L *layer) {
	c := m.Config
	N := st.ch.Rows()
	m.linear(st.inter, c.Intermediate, 0, in, N, L.up, L.upB)
	if c.Gated {
		m.linear(st.gate, c.Intermediate, 0, in, N, L.gate, nil)
		m.pool.Rows(len(st.inter), 4096, func(lo, hi int) { swiglu(st.inter[lo:hi], st.gate[lo:hi]) })
	} else {
		m.pool.Rows(len(st.inter), 4096, func(lo, hi int) { activate(c.Act, st.inter[lo:hi]) })
	}
	m.linear(st.h, c.Hidden, 0, st.inter, N, L.down, L.downB)
}

// linear sets columns [col, col+out) of dst (rows × ldc) to x·Wᵀ + b, W out × in.
func (m *Model) linear(dst []float32, ldc, col int, x []float32, rows int, w *hf.Tensor, b []float32) {
	out, in := w.Shape[0], w.Shape[1]
	wm := m.matrix(w)
	m.gemm.Sgemm(blas.NoTrans, blas.Trans, rows, out, in, 1, x, in, wm, in, 0, dst[col:], ldc)
	if b != nil {
		m.pool.Rows(rows, 64, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				row := dst[r*ldc+col : r*ldc+col+out]
				for j := range row {
					row[j] += b[j]
				}
			}
		})
	}
}

// output applies the final norm and the output head at the positions asked for.
func (m *Model) output(req Request, st *state, res *Result) {
	c := m.Config
	ch := st.ch
	N := ch.Rows()
	var rows []int
	if req.AllLogits || (req.Taps != nil && req.Taps.Residual != nil) {
		m.norm(st.h, st.x, N, m.normW, m.normB)
		if req.Taps != nil && req.Taps.Residual != nil {
			req.Taps.Residual(c.Layers, ch, st.h)
		}
	}
	for i := range ch.Seqs {
		if req.AllLogits {
			for r := ch.Start[i]; r < ch.Start[i+1]; r++ {
				rows = append(rows, r)
			}
		} else {
			rows = append(rows, ch.Last(i))
		}
	}
	// The normed rows asked for, packed.
	H := make([]float32, len(rows)*c.Hidden)
	for a, r := range rows {
		copy(H[a*c.Hidden:(a+1)*c.Hidden], st.x[r*c.Hidden:(r+1)*c.Hidden])
	}
	if !(req.AllLogits || (req.Taps != nil && req.Taps.Residual != nil)) {
		m.norm(H, H, len(rows), m.normW, m.normB)
	} else {
		for a, r := range rows {
			copy(H[a*c.Hidden:(a+1)*c.Hidden], st.h[r*c.Hidden:(r+1)*c.Hidden])
		}
	}
	logits := m.unembed(H, len(rows))
	a := 0
	for i, s := range ch.Seqs {
		n := 1
		if req.AllLogits {
			n = ch.Start[i+1] - ch.Start[i]
		}
		res.Logits[s] = logits[a*c.Vocab : (a+n)*c.Vocab : (a+n)*c.Vocab]
		last := a + n - 1
		res.Hidden[s] = append([]float32(nil), H[last*c.Hidden:(last+1)*c.Hidden]...)
		a += n
	}
}

// unembed returns H (rows × Hidden) times the output head, rows × Vocab, converting the
// head a block of vocabulary rows at a time.
func (m *Model) unembed(H []float32, rows int) []float32 {
	c := m.Config
	out := make([]float32, rows*c.Vocab)
	view, ok := m.head.View()
	block := min(c.Vocab, max(1, (16<<20)/(4*c.Hidden)))
	var buf []float32
	if !ok {
		buf = make([]float32, block*c.Hidden)
	}
	for v0 := 0; v0 < c.Vocab; v0 += block {
		v1 := min(c.Vocab, v0+block)
		var w []float32
		if ok {
			w = view[v0*c.Hidden : v1*c.Hidden]
		} else {
			w = buf[:(v1-v0)*c.Hidden]
			m.pool.Rows(v1-v0, 64, func(lo, hi int) {
				if _, err := m.head.Rows(v0+lo, v0+hi, w[lo*c.Hidden:hi*c.Hidden]); err != nil {
					m.fail(err)
				}
			})
		}
		m.gemm.Sgemm(blas.NoTrans, blas.Trans, rows, v1-v0, c.Hidden, 1, H, c.Hidden, w, c.Hidden, 0, out[v0:], c.Vocab)
	}
	if m.headB != nil {
		for r := range rows {
			row := out[r*c.Vocab : (r+1)*c.Vocab]
			for j := range row {
				row[j] += m.headB[j]
			}
		}
	}
	return out
}
