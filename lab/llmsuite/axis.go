package llmsuite

import (
	"context"
	"math"
	"math/rand/v2"

	"windtunnel/diagnostics"
	"windtunnel/models/llm"
	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
)

// keeper saves, on the SULA baseline pass, every prompt's residual stream entering the
// ablation layer (so the ablated passes resume there) and its last position's values at
// that layer.
type keeper struct {
	layer    int
	c        llm.Config
	residual [][]float32
	values   [][]float32
}

func newKeeper(layer int, c llm.Config) *keeper { return &keeper{layer: layer, c: c} }

// grow makes room for sequence index s.
func (k *keeper) grow(s int) {
	for len(k.residual) <= s {
		k.residual = append(k.residual, nil)
		k.values = append(k.values, nil)
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
			if l != k.layer {
				return
			}
			for i, s := range ch.Seqs {
				k.grow(s)
				k.residual[s] = append([]float32(nil), x[ch.Start[i]*H:ch.Start[i+1]*H]...)
			}
		},
		KV: func(l int, ch *llm.Chunk, _, v []float32) {
			if l != k.layer {
				return
			}
			for i, s := range ch.Seqs {
				k.grow(s)
				r := ch.Last(i)
				k.values[s] = append([]float32(nil), v[r*kv:(r+1)*kv]...)
			}
		},
	}
}

// ablate runs the SULA prompts again from the ablation layer with the entropy axis, then a
// random axis, projected out of that layer's values at every position, and compares them
// with the baseline pass res. It returns the record's section and the tokens run.
func ablate(ctx context.Context, m *llm.Model, sp *sulaSpec, res llm.Result, k *keeper, opt Options, progress func(string) func(int, int)) (*llmrun.Axis, int, error) {
	c := m.Config
	kv := c.KVHeads * c.HeadDim
	n := len(sp.ps)
	qs, _ := sp.dists(res)
	modelH := make([]float64, n)
	for i := range qs {
		modelH[i] = diagnostics.Entropy(qs[i][:])
	}
	V := widen(k.values)
	axis, sd, err := diagnostics.PrincipalAxis(V, n, kv)
	if err != nil {
		return nil, 0, err
	}
	if diagnostics.Pearson(diagnostics.Project(V, n, kv, axis), modelH) < 0 {
		for j := range axis {
			axis[j] = -axis[j]
		}
	}
	bh := sp.bayesEntropy()
	base := condition(sp, qs, V, n, kv, axis, modelH, res.Hidden, bh)
	out := &llmrun.Axis{Layer: k.layer, SD: sessions.Num(sd), Base: base}
	rnd := make([]float64, kv)
	r := rand.New(rand.NewPCG(opt.Seed, 0xa715))
	var norm float64
	for j := range rnd {
		rnd[j] = r.NormFloat64()
		norm += rnd[j] * rnd[j]
	}
	for j := range rnd {
		rnd[j] /= math.Sqrt(norm)
	}
	ran := 0
	for _, cut := range []struct {
		stage string
		dir   []float64
		dst   *llmrun.Condition
	}{{"entropy-axis cut", axis, &out.Cut}, {"random-axis cut", rnd, &out.Random}} {
		dir := make([]float32, kv)
		for j, v := range cut.dir {
			dir[j] = float32(v)
		}
		edited := make([][]float32, n)
		taps := &llm.Taps{EditValues: func(l int, ch *llm.Chunk, v []float32) {
			if l != k.layer {
				return
			}
			for r := range ch.Rows() {
				row := v[r*kv : (r+1)*kv]
				var dot float32
				for j, x := range row {
					dot += x * dir[j]
				}
				for j := range row {
					row[j] -= dot * dir[j]
				}
			}
			for i, s := range ch.Seqs {
				r := ch.Last(i)
				edited[s] = append([]float32(nil), v[r*kv:(r+1)*kv]...)
			}
		}}
		after, err := m.Forward(ctx, llm.Request{Seqs: sp.seqs, Start: k.layer, Residual: k.residual, Taps: taps, Progress: progress(cut.stage)})
		if err != nil {
			return nil, 0, err
		}
		ran += tokens(sp.seqs)
		aq, _ := sp.dists(after)
		aH := make([]float64, n)
		for i := range aq {
			aH[i] = diagnostics.Entropy(aq[i][:])
		}
		*cut.dst = condition(sp, aq, widen(edited), n, kv, axis, aH, after.Hidden, bh)
	}
	out.CalibrationChange = sessions.Num((float64(out.Cut.EntropyError) - float64(base.EntropyError)) / float64(base.EntropyError))
	out.RandomChange = sessions.Num((float64(out.Random.EntropyError) - float64(base.EntropyError)) / float64(base.EntropyError))
	return out, ran, nil
}

// condition measures one condition: calibration, the values' correlation with the model's
// entropy along the axis, and the final hidden states' |ρ(PC1, posterior entropy)|.
func condition(sp *sulaSpec, qs [][2]float64, V []float64, n, kv int, axis, modelH []float64, hidden [][]float32, bh []float64) llmrun.Condition {
	s := sp.calibration(qs, sp.all())
	out := llmrun.Condition{EntropyError: sessions.Num(s.BitErrorSample),
		AxisCorr: sessions.Num(diagnostics.Pearson(diagnostics.Project(V, n, kv, axis), modelH)), HiddenRho: sessions.Num(math.NaN())}
	if mf, err := manifoldOf("", true, hidden, bh); err == nil {
		out.HiddenRho = sessions.Num(math.Abs(float64(mf.Spearman)))
	}
	return out
}
