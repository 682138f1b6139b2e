package llmsuite

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"windtunnel/diagnostics"
	"windtunnel/models/llm"
	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
)

// geometry gathers key orthogonality and focusing from the taps of the baseline passes.
type geometry struct {
	c llm.Config
	// slot maps each compared token to its row of the sums.
	slot map[int]int
	// sums[l] holds, per compared token, the sum of its keys at layer l (slots × KVHeads·HeadDim);
	// counts the occurrences summed.
	sums   [][]float64
	counts []int
	// ent[l][s·Heads + h] is the entropy of head h's attention at prompt s's last position;
	// uniform[s] is log2 of prompt s's length.
	ent     [][]float64
	uniform []float64
}

// newGeometry picks the keyTokens most frequent tokens of seqs (first positions left out:
// a model's first token, often a special one, is where attention rests) and sizes the sums.
func newGeometry(m *llm.Model, seqs [][]int, keyTokens int) *geometry {
	c := m.Config
	freq := map[int]int{}
	for _, s := range seqs {
		for _, t := range s[1:] {
			freq[t]++
		}
	}
	toks := make([]int, 0, len(freq))
	for t := range freq {
		toks = append(toks, t)
	}
	slices.SortFunc(toks, func(a, b int) int {
		if freq[a] != freq[b] {
			return freq[b] - freq[a]
		}
		return cmp.Compare(a, b)
	})
	toks = toks[:min(len(toks), keyTokens)]
	g := &geometry{c: c, slot: map[int]int{}, counts: make([]int, len(toks)), uniform: make([]float64, len(seqs))}
	for i, t := range toks {
		g.slot[t] = i
	}
	kv := c.KVHeads * c.HeadDim
	g.sums = make([][]float64, c.Layers)
	g.ent = make([][]float64, c.Layers)
	for l := range c.Layers {
		g.sums[l] = make([]float64, len(toks)*kv)
		g.ent[l] = make([]float64, len(seqs)*c.Heads)
	}
	for i, s := range seqs {
		g.uniform[i] = math.Log2(float64(len(s)))
	}
	return g
}

// taps returns the taps of one pass whose prompts start at index offset of the seqs given
// to newGeometry (nil for a nil geometry).
func (g *geometry) taps(offset int) *llm.Taps {
	if g == nil {
		return nil
	}
	kv := g.c.KVHeads * g.c.HeadDim
	return &llm.Taps{
		KV: func(l int, ch *llm.Chunk, k, _ []float32) {
			for i := range ch.Seqs {
				for r := ch.Start[i] + 1; r < ch.Start[i+1]; r++ {
					s, ok := g.slot[ch.Tokens[r]]
					if !ok {
						continue
					}
					if l == 0 {
						g.counts[s]++
					}
					dst := g.sums[l][s*kv : (s+1)*kv]
					for j, v := range k[r*kv : (r+1)*kv] {
						dst[j] += float64(v)
					}
				}
			}
		},
		Attention: func(l int, ch *llm.Chunk, i, h, r0 int, p []float32, t int) {
			if r0+len(p)/t < t {
				return // the last query's row comes in the last block
			}
			row := make([]float64, t)
			for j, v := range p[len(p)-t:] {
				row[j] = float64(v)
			}
			g.ent[l][(offset+ch.Seqs[i])*g.c.Heads+h] = diagnostics.Entropy(row)
		},
	}
}

// keys is key orthogonality from the sums, the random baseline and the embedding proxy.
func (g *geometry) keys(m *llm.Model, seed uint64) (*llmrun.Keys, error) {
	c := g.c
	d, kv := c.HeadDim, c.KVHeads*c.HeadDim
	var used []int
	for s, n := range g.counts {
		if n > 0 {
			used = append(used, s)
		}
	}
	out := &llmrun.Keys{Tokens: len(used)}
	sub := make([]float64, len(used)*d)
	for l := range c.Layers {
		row := make([]sessions.Num, c.KVHeads)
		var sum float64
		for h := range c.KVHeads {
			for a, s := range used {
				inv := 1 / float64(g.counts[s])
				for j := range d {
					sub[a*d+j] = g.sums[l][s*kv+h*d+j] * inv
				}
			}
			v, err := diagnostics.MeanAbsOffDiagCosine(sub, len(used), d)
			if err != nil {
				v = math.NaN()
			}
			row[h] = sessions.Num(v)
			sum += v
		}
		out.Real = append(out.Real, row)
		out.ByLayer = append(out.ByLayer, sessions.Num(sum/float64(c.KVHeads)))
	}
	out.Random = sessions.Num(diagnostics.RandomOrthogonality(len(used), d, seed, 20, false))
	// The authors' proxy: the input embeddings of token ids drawn uniformly from the tokenizer's.
	r := rand.New(rand.NewPCG(seed, 0x70c5))
	n := min(100, m.Tokenizer.VocabSize())
	ids := make([]int, n)
	for i := range ids {
		ids[i] = r.IntN(min(m.Tokenizer.VocabSize(), c.Vocab))
	}
	emb, err := m.Embeddings(ids)
	if err != nil {
		return nil, err
	}
	v, err := diagnostics.MeanAbsOffDiagCosine(widen(emb), n, c.Hidden)
	if err != nil {
		v = math.NaN()
	}
	out.Proxy, out.ProxyTokens = sessions.Num(v), n
	if out.Columns, err = keyColumns(m); err != nil {
		return nil, err
	}
	out.ColumnsGaussian = sessions.Num(diagnostics.RandomOrthogonality(c.HeadDim, c.Hidden, seed, 20, false))
	return out, nil
}

// keyColumns is the paper's key orthogonality (§4.2) by layer: the mean |cosine| between the
// columns of each key/value head's W_K (HeadDim vectors of the residual width), averaged over heads.
func keyColumns(m *llm.Model) ([]sessions.Num, error) {
	c := m.Config
	out := make([]sessions.Num, c.Layers)
	w := make([]float64, c.HeadDim*c.Hidden)
	for l := range c.Layers {
		var sum float64
		for g := range c.KVHeads {
			k, err := m.KeyWeights(l, g)
			if err != nil {
				return nil, fmt.Errorf("llmsuite: %w", err)
			}
			for i, x := range k {
				w[i] = float64(x)
			}
			v, err := diagnostics.MeanAbsOffDiagCosine(w, c.HeadDim, c.Hidden)
			if err != nil {
				v = math.NaN()
			}
			sum += v
		}
		out[l] = sessions.Num(sum / float64(c.KVHeads))
	}
	return out, nil
}

// focus is the attention entropy by layer and head.
func (g *geometry) focus() *llmrun.Focus {
	c := g.c
	n := len(g.uniform)
	out := &llmrun.Focus{Prompts: n}
	byLayer := make([]float64, c.Layers)
	for l := range c.Layers {
		row := make([]sessions.Num, c.Heads)
		for h := range c.Heads {
			var s float64
			for i := range n {
				s += g.ent[l][i*c.Heads+h]
			}
			row[h] = sessions.Num(s / float64(n))
			byLayer[l] += s / float64(n) / float64(c.Heads)
		}
		out.Entropy = append(out.Entropy, row)
		out.ByLayer = append(out.ByLayer, sessions.Num(byLayer[l]))
	}
	var u float64
	for _, x := range g.uniform {
		u += x
	}
	out.Uniform = sessions.Num(u / float64(n))
	tr := diagnostics.TrendOf(byLayer)
	out.Drop, out.Spearman = sessions.Num(tr.Drop), sessions.Num(tr.Spearman)
	return out
}
