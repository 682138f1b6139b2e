package models

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// SiteEmbed is the Jacobian site at the embedding output (token plus position embedding);
// a site l ≥ 0 is the residual stream after block l.
const SiteEmbed = -1

// JLensGrams holds the Gram matrices of the J-lens (Paper I's training-time frame
// measurement, as the authors take it): for each site and scored position i, the sum of g·gᵀ
// over the rows g = ∂logit_c(p′)/∂x_i, where x_i is the residual stream at that site and
// position, logit_c(p′) the logit of class c at a later position p′ > i (every later
// position, scored or not), over every class and every sequence. The top right singular
// subspace of the stacked rows is the top eigenspace of the Gram.
type JLensGrams struct {
	// Sites are the Jacobian sites (SiteEmbed or a block index).
	Sites []int
	// Positions are the scored positions measured: those with a later position.
	Positions []int
	// Width is the residual width d, Classes the class logits differentiated, Seqs the
	// sequences stacked.
	Width, Classes, Seqs int
	// Gram[si·len(Positions)+k] is the Width×Width Gram (row-major) at site Sites[si] and
	// position Positions[k].
	Gram [][]float64
	// Rows[k] is the number of stacked rows at Positions[k]: Seqs·Classes·(T−1−Positions[k]).
	Rows []int
}

// JLens computes the J-lens Grams of a transformer over the first seqs sequences of b at the
// given sites (SiteEmbed or block indices), with the operator's head and unit masks as they
// are. Each sequence runs one forward pass and, per later position p′, one reverse pass of
// the class logits at p′ (Classes adjoints at once) through the whole sequence, in the
// model's precision (the Grams are summed in float64, sequence by sequence in order, so the
// result does not depend on the worker count).
//
// Its pass (jlens_pass.go) is a deliberate twin of the transformer's training kernels, not
// built on them: it shares their formulas (numerics.go: the norm ε, RMSNorm's factor, GELU
// and its gradient) and their matrix products (the model's GEMM backend), but carries C
// adjoints a position through one sequence at a time, keeps every block's values for them,
// and sums the norms' squares and the attention scores and softmax in float64 (math.Exp),
// where the kernels sum in the model's precision with AVX2 and a float32 exp over whole
// batches: built on the kernels it would give other numbers than the autograd twin
// (scripts/torch_jlens.py, lab's TestJLensTorch) is held to.
func JLens(m Model, t tunnels.Tunnel, b *tunnels.Batch, seqs int, sites []int) (*JLensGrams, error) {
	switch n := m.(type) {
	case *net[float32]:
		return jlens(n, t, b, seqs, sites)
	case *net[float64]:
		return jlens(n, t, b, seqs, sites)
	}
	return nil, fmt.Errorf("models: the J-lens needs a transformer, not %s", m.Kind())
}

// FrameDirections returns the directions of the tunnel's classes that the authors' frame
// spans, C×Width row-major: the class tokens' embeddings as block 0's attention reads them
// (through its RMSNorm with its learned gain, no position) when the output head is tied to
// the embedding (bijection and recall values); else the output head's class columns,
// normalised (HMM states, which are not tokens).
func FrameDirections(m Model, t tunnels.Tunnel) ([]float64, int, error) {
	byName := map[string]*tensor.Dense{}
	for _, p := range m.Params() {
		byName[p.Name] = p.Value
	}
	tok, ok := byName["tok"]
	if !ok {
		return nil, 0, fmt.Errorf("models: %s has no token embedding", m.Kind())
	}
	d := tok.Shape()[1]
	c := t.Classes()
	out := make([]float64, c*d)
	if off, tied := t.ClassTokens(); tied {
		e := floats(tok)
		gain := []float64(nil)
		if g, ok := byName["layer0.norm1"]; ok {
			gain = floats(g)
		}
		for k := 0; k < c; k++ {
			row, src := out[k*d:(k+1)*d], e[(off+k)*d:(off+k+1)*d]
			r := rmsInvT(src)
			for j := range row {
				row[j] = src[j] * r
				if gain != nil {
					row[j] *= gain[j]
				}
			}
		}
		return out, d, nil
	}
	head, ok := byName["head"]
	if !ok {
		return nil, 0, fmt.Errorf("models: %s has neither a tied nor an own output head", m.Kind())
	}
	h := floats(head) // d×C
	for k := 0; k < c; k++ {
		var n float64
		for r := 0; r < d; r++ {
			out[k*d+r] = h[r*c+k]
			n += h[r*c+k] * h[r*c+k]
		}
		if n = math.Sqrt(n); n > 0 {
			for r := 0; r < d; r++ {
				out[k*d+r] /= n
			}
		}
	}
	return out, d, nil
}

func jlens[T Float](m *net[T], t tunnels.Tunnel, b *tunnels.Batch, seqs int, sites []int) (*JLensGrams, error) {
	if m.kind != arch.KindTransformer {
		return nil, fmt.Errorf("models: the J-lens needs a transformer, not %s", m.kind)
	}
	if b.T != t.SeqLen() {
		return nil, fmt.Errorf("models: J-lens: a batch of %d-token sequences for a tunnel of %d", b.T, t.SeqLen())
	}
	seqs = min(seqs, b.N)
	if seqs < 1 {
		return nil, fmt.Errorf("models: J-lens of %d sequences", seqs)
	}
	for _, s := range sites {
		if s < SiteEmbed || s >= m.layers {
			return nil, fmt.Errorf("models: J-lens site %d: want -1 (embedding) .. %d", s, m.layers-1)
		}
	}
	sn, err := newSeqNet(m, t)
	if err != nil {
		return nil, err
	}
	T0 := b.T
	g := &JLensGrams{Sites: append([]int(nil), sites...), Width: sn.d, Classes: sn.c, Seqs: seqs}
	for _, i := range t.Positions() {
		if i < T0-1 {
			g.Positions = append(g.Positions, i)
			g.Rows = append(g.Rows, seqs*sn.c*(T0-1-i))
		}
	}
	if len(g.Positions) == 0 {
		return nil, fmt.Errorf("models: J-lens: no scored position has a later position")
	}
	cells := len(sites) * len(g.Positions)
	d2 := sn.d * sn.d
	for range cells {
		g.Gram = append(g.Gram, make([]float64, d2))
	}
	workers := max(1, m.opt.Workers)
	ws := make([]*seqWork[T], min(workers, seqs))
	for w := range ws {
		ws[w] = sn.newWork(T0, cells)
	}
	pl := par.Pool{Workers: len(ws)}
	for lo := 0; lo < seqs; lo += len(ws) {
		n := min(len(ws), seqs-lo)
		pl.Each(n, func(w, item int) {
			s := lo + item
			wk := ws[item]
			for _, gr := range wk.gram {
				clear(gr)
			}
			sn.forward(wk, b.Tokens[s*T0:(s+1)*T0])
			sn.reverse(wk, g.Sites, g.Positions)
		})
		for item := 0; item < n; item++ { // in sequence order: the sums do not depend on the workers
			for ci, gr := range ws[item].gram {
				dst := g.Gram[ci]
				for k, v := range gr {
					dst[k] += v
				}
			}
		}
	}
	return g, nil
}

// seqLayer is one block's parameters as the J-lens pass reads them.
type seqLayer[T Float] struct {
	norm1, wq, wk, wv, wo, norm2, w1, b1, w2, b2 []T
	mask                                         []float64
	gateA, gateM                                 T
}

// seqNet is a transformer's parameters for the J-lens pass over whole sequences.
type seqNet[T Float] struct {
	be          gemm.Backend
	d, f, c, hd int
	heads, tSeq int
	act         activation // the model's GELU form (actGELU or actGELUErf)
	tok, pos    []T
	norm        []T
	out         []T // C×d: the class rows of the tied embedding, or the head's columns
	layers      []seqLayer[T]
}

func newSeqNet[T Float](m *net[T], t tunnels.Tunnel) (*seqNet[T], error) {
	byName := map[string][]T{}
	for _, p := range m.st.params {
		byName[p.Name] = data[T](p.Value)
	}
	get := func(name string) ([]T, error) {
		v, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("models: transformer has no parameter %s", name)
		}
		return v, nil
	}
	sn := &seqNet[T]{be: gemm.Go(), heads: m.heads, c: t.Classes(), tSeq: t.SeqLen(), act: m.opt.geluAct()}
	var err error
	if sn.tok, err = get("tok"); err != nil {
		return nil, err
	}
	if sn.pos, err = get("pos"); err != nil {
		return nil, err
	}
	if sn.norm, err = get("norm"); err != nil {
		return nil, err
	}
	sn.d = len(sn.norm)
	sn.hd = sn.d / sn.heads
	for l := 0; l < m.layers; l++ {
		var ly seqLayer[T]
		p := fmt.Sprintf("layer%d.", l)
		for _, f := range []struct {
			name string
			dst  *[]T
		}{{"norm1", &ly.norm1}, {"wq", &ly.wq}, {"wk", &ly.wk}, {"wv", &ly.wv}, {"wo", &ly.wo},
			{"norm2", &ly.norm2}, {"w1", &ly.w1}, {"b1", &ly.b1}, {"w2", &ly.w2}, {"b2", &ly.b2}} {
			if *f.dst, err = get(p + f.name); err != nil {
				return nil, err
			}
		}
		ly.mask = m.mask[l]
		ly.gateA, ly.gateM = T(*m.unitGate("attn", l)), T(*m.unitGate("mlp", l))
		sn.layers = append(sn.layers, ly)
		sn.f = len(ly.b1)
	}
	d, c := sn.d, sn.c
	sn.out = make([]T, c*d)
	if m.out.tied {
		copy(sn.out, sn.tok[m.out.off*d:(m.out.off+c)*d])
	} else {
		h, err := get("head") // d×C
		if err != nil {
			return nil, err
		}
		for r := 0; r < d; r++ {
			for k := 0; k < c; k++ {
				sn.out[k*d+r] = h[r*c+k]
			}
		}
	}
	return sn, nil
}
