package llmsuite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"windtunnel/diagnostics"
	"windtunnel/models/llm"
	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
)

// axisLayers is how many layers the paper's protocol cuts: the last five.
const axisLayers = 5

// cutLayers are the layers the ablation cuts: layer alone when it is > 0, else the last
// axisLayers layers of a model of n layers, never layer 0 (whose values are a function of the
// token alone: at SULA's last position, ":", they do not vary).
func cutLayers(layer, n int) []int {
	if layer > 0 {
		return []int{layer}
	}
	var out []int
	for l := max(1, n-axisLayers); l < n; l++ {
		out = append(out, l)
	}
	return out
}

// keeper saves, on the SULA baseline pass, every prompt's residual stream entering the first
// cut layer (so the ablated passes resume there) and its last position's values at each cut
// layer.
type keeper struct {
	layers   []int
	c        llm.Config
	residual [][]float32
	// values[i][s] is prompt s's last-position values at layers[i].
	values [][][]float32
}

func newKeeper(layers []int, c llm.Config) *keeper {
	return &keeper{layers: layers, c: c, values: make([][][]float32, len(layers))}
}

// index is l's place among the cut layers, or −1.
func (k *keeper) index(l int) int {
	for i, x := range k.layers {
		if x == l {
			return i
		}
	}
	return -1
}

// grow makes room for sequence index s.
func (k *keeper) grow(s int) {
	for len(k.residual) <= s {
		k.residual = append(k.residual, nil)
		for i := range k.values {
			k.values[i] = append(k.values[i], nil)
		}
	}
}

// taps returns the keeper's taps (nil for a nil keeper).
func (k *keeper) taps() *llm.Taps {
	if k == nil {
		return nil
	}
	H, kv := k.c.Hidden, k.c.KVHeads*k.c.HeadDim
	return &llm.Taps{
		Residual: func(l int, ch *llm.Chunk, x []float32) {
			if l != k.layers[0] {
				return
			}
			for i, s := range ch.Seqs {
				k.grow(s)
				k.residual[s] = append([]float32(nil), x[ch.Start[i]*H:ch.Start[i+1]*H]...)
			}
		},
		KV: func(l int, ch *llm.Chunk, _, v []float32) {
			li := k.index(l)
			if li < 0 {
				return
			}
			for i, s := range ch.Seqs {
				k.grow(s)
				r := ch.Last(i)
				k.values[li][s] = append([]float32(nil), v[r*kv:(r+1)*kv]...)
			}
		},
	}
}

// cut is one layer's entropy axis and orthogonalised random axis, in the coordinates of its
// values standardised per dimension (mean and sd over the prompts' last positions).
type cut struct {
	mean, sd, axis, random []float64
}

// newCut finds layer values V's (n × kv) entropy axis: PC1 of the standardised values, signed
// to rise with the model's entropy modelH; and a random unit axis orthogonal to it.
func newCut(V []float64, n, kv int, modelH []float64, r *rand.Rand) (*cut, error) {
	mean, sd := diagnostics.ColumnStats(V, n, kv)
	Z := diagnostics.Standardize(V, n, kv)
	axis, _, err := diagnostics.PrincipalAxis(Z, n, kv)
	if err != nil {
		return nil, err
	}
	if diagnostics.Pearson(diagnostics.Project(Z, n, kv, axis), modelH) < 0 {
		for j := range axis {
			axis[j] = -axis[j]
		}
	}
	rnd := make([]float64, kv)
	for range 8 { // a draw parallel to the axis has probability 0; retry all the same
		var dot, norm float64
		for j := range rnd {
			rnd[j] = r.NormFloat64()
			dot += rnd[j] * axis[j]
		}
		for j := range rnd {
			rnd[j] -= dot * axis[j]
			norm += rnd[j] * rnd[j]
		}
		if norm > 1e-12 {
			for j := range rnd {
				rnd[j] /= math.Sqrt(norm)
			}
			break
		}
	}
	return &cut{mean: mean, sd: sd, axis: axis, random: rnd}, nil
}

// apply removes from each row of v (rows × kv) its standardised component along dir: z = (v−μ)/σ,
// z' = z − (z·u)u, v' = μ + σ⊙z'.
func (c *cut) apply(v []float32, rows, kv int, dir []float64) {
	for r := range rows {
		row := v[r*kv : (r+1)*kv]
		var dot float64
		for j, x := range row {
			if c.sd[j] > 0 {
				dot += (float64(x) - c.mean[j]) / c.sd[j] * dir[j]
			}
		}
		for j := range row {
			row[j] -= float32(dot * c.sd[j] * dir[j])
		}
	}
}

// score is the values' standardised projection on the axis, one per row of V.
func (c *cut) score(V []float64, n, kv int) []float64 {
	out := make([]float64, n)
	z := make([]float64, kv)
	for i := range n {
		diagnostics.StandardizeRow(z, V[i*kv:(i+1)*kv], c.mean, c.sd)
		for j, a := range c.axis {
			out[i] += z[j] * a
		}
	}
	return out
}

// ablate runs the SULA prompts again from the first cut layer with each cut layer's entropy
// axis, then its random axis, projected out of that layer's standardised values at every
// position, and compares them with the baseline pass res. It returns the record's section and
// the tokens run.
func ablate(ctx context.Context, m *llm.Model, sp *sulaSpec, res llm.Result, k *keeper, opt Options, progress func(string) func(int, int)) (*llmrun.Axis, int, error) {
	c := m.Config
	kv := c.KVHeads * c.HeadDim
	n := len(sp.ps)
	qs, _ := sp.dists(res)
	modelH := make([]float64, n)
	for i := range qs {
		modelH[i] = diagnostics.Entropy(qs[i][:])
	}
	r := rand.New(rand.NewPCG(opt.Seed, 0xa715))
	cuts := make([]*cut, len(k.layers))
	for i, l := range k.layers {
		var err error
		if cuts[i], err = newCut(widen(k.values[i]), n, kv, modelH, r); err != nil {
			return nil, 0, fmt.Errorf("llmsuite: axis of layer %d: %w", l, err)
		}
	}
	last := len(k.layers) - 1
	V := widen(k.values[last])
	bh := sp.bayesEntropy()
	base := condition(sp, qs, cuts[last].score(V, n, kv), modelH, res.Hidden, bh)
	out := &llmrun.Axis{Layer: k.layers[last], Layers: k.layers, Standardised: true, SD: sessions.Num(stdDev(cuts[last].score(V, n, kv))), Base: base}
	ran := 0
	for _, cc := range []struct {
		stage  string
		random bool
		dst    *llmrun.Condition
	}{{"entropy-axis cut", false, &out.Cut}, {"random-axis cut", true, &out.Random}} {
		edited := make([][]float32, n)
		taps := &llm.Taps{EditValues: func(l int, ch *llm.Chunk, v []float32) {
			li := k.index(l)
			if li < 0 {
				return
			}
			dir := cuts[li].axis
			if cc.random {
				dir = cuts[li].random
			}
			cuts[li].apply(v, ch.Rows(), kv, dir)
			if li == last {
				for i, s := range ch.Seqs {
					r := ch.Last(i)
					edited[s] = append([]float32(nil), v[r*kv:(r+1)*kv]...)
				}
			}
		}}
		after, err := m.Forward(ctx, llm.Request{Seqs: sp.seqs, Start: k.layers[0], Residual: k.residual, Taps: taps, Progress: progress(cc.stage)})
		if err != nil {
			return nil, 0, err
		}
		ran += tokens(sp.seqs)
		aq, _ := sp.dists(after)
		aH := make([]float64, n)
		for i := range aq {
			aH[i] = diagnostics.Entropy(aq[i][:])
		}
		*cc.dst = condition(sp, aq, cuts[last].score(widen(edited), n, kv), aH, after.Hidden, bh)
	}
	out.CalibrationChange = sessions.Num((float64(out.Cut.EntropyError) - float64(base.EntropyError)) / float64(base.EntropyError))
	out.RandomChange = sessions.Num((float64(out.Random.EntropyError) - float64(base.EntropyError)) / float64(base.EntropyError))
	return out, ran, nil
}

// stdDev is the population standard deviation of x.
func stdDev(x []float64) float64 {
	_, sd := diagnostics.ColumnStats(x, len(x), 1)
	if sd == nil {
		return math.NaN()
	}
	return sd[0]
}

// condition measures one condition: calibration, the correlation of the values' score on the
// last cut layer's axis with the model's entropy, and the final hidden states' |ρ(PC1,
// posterior entropy)|.
func condition(sp *sulaSpec, qs [][2]float64, score, modelH []float64, hidden [][]float32, bh []float64) llmrun.Condition {
	s := sp.calibration(qs, sp.all())
	out := llmrun.Condition{EntropyError: sessions.Num(s.BitErrorSample),
		AxisCorr: sessions.Num(diagnostics.Pearson(score, modelH)), HiddenRho: sessions.Num(math.NaN())}
	if mf, err := manifoldOf("", true, hidden, bh); err == nil {
		out.HiddenRho = sessions.Num(math.Abs(float64(mf.Spearman)))
	}
	return out
}
