package llmsuite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"windtunnel/diagnostics"
	"windtunnel/models/llm"
	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
	"windtunnel/tunnels/sula"
)

// shufflePermutations is how many within-k permutations the shuffled-labels control averages.
const shufflePermutations = 20

// predictors scores the constant-label predictor (L1 with certainty) and the uniform one on
// the SULA prompts: what calibration a model that learnt nothing earns.
func (sp *sulaSpec) predictors() (constant, uniform *llmrun.Calibration) {
	n := len(sp.ps)
	cq, uq := make([][2]float64, n), make([][2]float64, n)
	for i := range n {
		cq[i], uq[i] = [2]float64{1, 0}, [2]float64{0.5, 0.5}
	}
	return sp.calibrationOf(cq, sp.ps), sp.calibrationOf(uq, sp.ps)
}

// calibrationOf scores the distributions qs against the posteriors of ps.
func (sp *sulaSpec) calibrationOf(qs [][2]float64, ps []sula.Prompt) *llmrun.Calibration {
	q := make([]float64, 0, 2*len(ps))
	p := make([]float64, 0, 2*len(ps))
	for i, pr := range ps {
		q = append(q, qs[i][0], qs[i][1])
		p = append(p, pr.Posterior[0], pr.Posterior[1])
	}
	s, err := diagnostics.Score(q, p, len(ps), 1, 2)
	if err != nil {
		panic(err) // sizes are built here
	}
	return &llmrun.Calibration{EntropyError: sessions.Num(s.BitErrorSample), KLBits: sessions.Num(s.KLBits),
		AccuracyUntied: sessions.Num(untiedAccuracy(qs, ps))}
}

// shuffled scores the model's own distributions qs and SULA PC1 against the posterior
// entropies permuted within each k: the evidence broken, the prompt's length kept.
func (sp *sulaSpec) shuffled(qs [][2]float64, pc1 []float64, seed uint64) *llmrun.Shuffled {
	bh := sp.bayesEntropy()
	byK := map[int][]int{}
	for i, p := range sp.ps {
		byK[p.K] = append(byK[p.K], i)
	}
	r := rand.New(rand.NewPCG(seed, 0x5b0f))
	perm := make([]float64, len(bh))
	var errSum, rhoSum float64
	for range shufflePermutations {
		for _, k := range sula.Ks {
			idx := byK[k]
			order := r.Perm(len(idx))
			for j, i := range idx {
				perm[i] = bh[idx[order[j]]]
			}
		}
		var e float64
		for i := range qs {
			e += math.Abs(diagnostics.Entropy(qs[i][:]) - perm[i])
		}
		errSum += e / float64(len(qs))
		rhoSum += math.Abs(diagnostics.Spearman(pc1, perm))
	}
	return &llmrun.Shuffled{Permutations: shufflePermutations, EntropyError: sessions.Num(errSum / shufflePermutations),
		ManifoldRho: sessions.Num(rhoSum / shufflePermutations)}
}

// controls scores the predictors and the shuffled labels and, with passes, runs the lexical
// remap and the evidence ablation through m, beside the baseline pass res (whose SULA section
// is out). It returns the nulls and the tokens run; nulls with an error is a warning (the
// controls that could not be run are absent).
func (sp *sulaSpec) controls(ctx context.Context, m *llm.Model, res llm.Result, out *llmrun.SULA, opt Options, passes bool, progress func(string) func(int, int)) (*llmrun.Nulls, int, error) {
	start := time.Now()
	n := &llmrun.Nulls{}
	qs, _ := sp.dists(res)
	pc1 := make([]float64, len(sp.ps))
	for i, pt := range out.Manifold.Points {
		pc1[i] = float64(pt[0])
	}
	n.Constant, n.Uniform = sp.predictors()
	n.Shuffled = sp.shuffled(qs, pc1, opt.Seed)
	ran := 0
	if !passes {
		n.ControlsWallS = time.Since(start).Seconds()
		return n, 0, nil
	}
	if sp.spare == nil {
		n.ControlsWallS = time.Since(start).Seconds()
		return n, 0, fmt.Errorf("llmsuite: fewer than five single-token labels that are not English words for this tokenizer: the remap and ablation controls need three beyond the two labels")
	}
	axis, err := newPCAFrame(out.Manifold, res.Hidden)
	if err != nil {
		return nil, 0, err
	}
	for _, c := range []struct {
		stage  string
		ps     []sula.Prompt
		labels [2]string
		ids    [2]int
		dst    **llmrun.Control
	}{
		{"lexical remap", sula.Remap(sp.ps, [2]string{sp.spare[0], sp.spare[1]}), [2]string{sp.spare[0], sp.spare[1]}, [2]int{sp.spareIDs[0], sp.spareIDs[1]}, &n.Remap},
		{"evidence ablation", sula.Ablate(sp.ps, sp.spare[2]), [2]string{sp.spare[2], sp.spare[2]}, sp.ids, &n.Ablation},
	} {
		texts := make([]string, len(c.ps))
		for i, p := range c.ps {
			texts[i] = p.Text
		}
		seqs, err := encode(m, texts, c.stage)
		if err != nil {
			return nil, 0, err
		}
		after, err := m.Forward(ctx, llm.Request{Seqs: seqs, Progress: progress(c.stage)})
		if err != nil {
			return nil, 0, err
		}
		ran += tokens(seqs)
		cq := make([][2]float64, len(c.ps))
		for i := range c.ps {
			cq[i], _ = labelDist(after.Logits[i], c.ids)
		}
		ctl := &llmrun.Control{Labels: c.labels, Calibration: *sp.calibrationOf(cq, c.ps), ManifoldRho: sessions.Num(math.NaN())}
		var proj []float64
		if c.dst == &n.Remap {
			bh := make([]float64, len(c.ps))
			for i, p := range c.ps {
				bh[i] = diagnostics.Entropy(p.Posterior[:])
			}
			mf, err := manifoldOf("remap", true, after.Hidden, bh)
			if err != nil {
				return nil, 0, fmt.Errorf("llmsuite: lexical remap manifold: %w", err)
			}
			ctl.ManifoldRho = sessions.Num(math.Abs(float64(mf.Spearman)))
			for _, pt := range mf.Points {
				proj = append(proj, float64(pt[0]))
			}
			// The remap's PCA has a sign of its own: align it with the main prompts' (the
			// same prompts, one for one), so the two trajectories read in one direction.
			if diagnostics.Pearson(proj, pc1) < 0 {
				for i := range proj {
					proj[i] = -proj[i]
				}
			}
			ctl.PC1SD = sessions.Num(stdDev(proj))
		} else {
			proj = axis.project(after.Hidden)
			ctl.PC1SD = sessions.Num(stdDev(pc1))
		}
		ctl.PC1ByK = meansByK(c.ps, proj)
		*c.dst = ctl
	}
	n.ControlsWallS = time.Since(start).Seconds()
	return n, ran, nil
}

// meansByK is the mean of x over the prompts of each k of sula.Ks present, in that order.
func meansByK(ps []sula.Prompt, x []float64) []sessions.Num {
	sum, cnt := map[int]float64{}, map[int]int{}
	for i, p := range ps {
		sum[p.K] += x[i]
		cnt[p.K]++
	}
	var out []sessions.Num
	for _, k := range sula.Ks {
		if cnt[k] > 0 {
			out = append(out, sessions.Num(sum[k]/float64(cnt[k])))
		}
	}
	return out
}

// pcaFrame is the SULA manifold's standardisation and PC1, signed as the manifold's points
// are, so that other hidden states land on the same axis.
type pcaFrame struct {
	mean, sd, axis []float64
}

// newPCAFrame rebuilds the frame of the manifold mf from the hidden states it was computed on.
func newPCAFrame(mf llmrun.Set, hidden [][]float32) (*pcaFrame, error) {
	n := len(hidden)
	if n < 2 {
		return nil, fmt.Errorf("llmsuite: SULA frame: %d prompts", n)
	}
	dim := len(hidden[0])
	x := widen(hidden)
	mean, sd := diagnostics.ColumnStats(x, n, dim)
	axis, _, err := diagnostics.PrincipalAxis(diagnostics.Standardize(x, n, dim), n, dim)
	if err != nil {
		return nil, fmt.Errorf("llmsuite: SULA frame: %w", err)
	}
	f := &pcaFrame{mean: mean, sd: sd, axis: axis}
	ref := make([]float64, n)
	for i, p := range mf.Points {
		ref[i] = float64(p[0])
	}
	if diagnostics.Pearson(f.project(hidden), ref) < 0 {
		for j := range f.axis {
			f.axis[j] = -f.axis[j]
		}
	}
	return f, nil
}

// project is each row's coordinate on the frame's PC1.
func (f *pcaFrame) project(hidden [][]float32) []float64 {
	out := make([]float64, len(hidden))
	row, z := make([]float64, len(f.mean)), make([]float64, len(f.mean))
	for i, h := range hidden {
		for j, v := range h {
			row[j] = float64(v)
		}
		diagnostics.StandardizeRow(z, row, f.mean, f.sd)
		for j, a := range f.axis {
			out[i] += z[j] * a
		}
	}
	return out
}
