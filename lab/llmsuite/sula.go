package llmsuite

import (
	"fmt"
	"math"

	"windtunnel/diagnostics"
	"windtunnel/models/llm"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/llmrun"
	"windtunnel/tunnels/sula"
)

// sulaSpec is the SULA set, drawn and tokenized.
type sulaSpec struct {
	labels [2]string
	ids    [2]int
	ps     []sula.Prompt
	seqs   [][]int
	// spare are three more labels for the controls (the remap's pair, the ablation's
	// filler) with their ids; nil when the tokenizer has too few.
	spare    []string
	spareIDs []int
}

// sulaPrompts picks two single-token labels for m's tokenizer (and, with controls, three more
// for them) and draws the prompts.
func sulaPrompts(m *llm.Model, opt Options, controls bool) (*sulaSpec, error) {
	enc := func(s string) ([]int, error) { return m.Tokenizer.Encode(s, false) }
	labels, ids, err := sula.Labels(enc)
	if err != nil {
		return nil, fmt.Errorf("llmsuite: %w", err)
	}
	var spare []string
	var spareIDs []int
	if controls {
		if ls, is, err := sula.LabelSet(enc, 5); err == nil {
			spare, spareIDs = ls[2:], is[2:]
		}
	}
	ps, err := sula.Generate(sula.Config{Ks: sula.Ks, PerK: opt.PerK, Alpha: sula.Alpha, Seed: opt.Seed, Labels: labels})
	if err != nil {
		return nil, fmt.Errorf("llmsuite: %w", err)
	}
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = p.Text
	}
	seqs, err := encode(m, texts, "SULA")
	if err != nil {
		return nil, err
	}
	return &sulaSpec{labels: labels, ids: ids, ps: ps, seqs: seqs, spare: spare, spareIDs: spareIDs}, nil
}

// labelDist is the model's distribution over the two labels (its softmax restricted to them,
// renormalised) and the probability it gives the two together.
func (sp *sulaSpec) labelDist(logits []float32) (q [2]float64, mass float64) {
	return labelDist(logits, sp.ids)
}

// labelDist is the distribution over the labels ids (the softmax restricted to them,
// renormalised) and the probability the softmax gives the two together.
func labelDist(logits []float32, ids [2]int) (q [2]float64, mass float64) {
	a, b := float64(logits[ids[0]]), float64(logits[ids[1]])
	q[0] = 1 / (1 + math.Exp(b-a))
	q[1] = 1 - q[0]
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, float64(v))
	}
	var z float64
	for _, v := range logits {
		z += math.Exp(float64(v) - mx)
	}
	return q, (math.Exp(a-mx) + math.Exp(b-mx)) / z
}

// calibration scores the model's label distributions qs against the posteriors of the
// prompts idx: the entropy error (bit error (b)), KL and accuracy.
func (sp *sulaSpec) calibration(qs [][2]float64, idx []int) diagnostics.Scores {
	q := make([]float64, 0, 2*len(idx))
	p := make([]float64, 0, 2*len(idx))
	for _, i := range idx {
		q = append(q, qs[i][0], qs[i][1])
		p = append(p, sp.ps[i].Posterior[0], sp.ps[i].Posterior[1])
	}
	s, err := diagnostics.Score(q, p, len(idx), 1, 2)
	if err != nil {
		panic(err) // sizes are built here
	}
	return s
}

// dists returns every prompt's label distribution and the mean label mass.
func (sp *sulaSpec) dists(res llm.Result) ([][2]float64, float64) {
	qs := make([][2]float64, len(sp.ps))
	var mass float64
	for i := range sp.ps {
		var m float64
		qs[i], m = sp.labelDist(res.Logits[i])
		mass += m
	}
	return qs, mass / float64(len(sp.ps))
}

// all is every prompt's index.
func (sp *sulaSpec) all() []int {
	idx := make([]int, len(sp.ps))
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// bayesEntropy is each prompt's posterior entropy in bits.
func (sp *sulaSpec) bayesEntropy() []float64 {
	out := make([]float64, len(sp.ps))
	for i, p := range sp.ps {
		out[i] = diagnostics.Entropy(p.Posterior[:])
	}
	return out
}

// score turns the baseline pass into the record's SULA section.
func (sp *sulaSpec) score(res llm.Result) (*llmrun.SULA, error) {
	qs, mass := sp.dists(res)
	all := sp.calibration(qs, sp.all())
	out := &llmrun.SULA{Labels: sp.labels, LabelIDs: sp.ids, Alpha: sula.Alpha,
		EntropyError: sessions.Num(all.BitErrorSample), KLBits: sessions.Num(all.KLBits), Accuracy: sessions.Num(all.Accuracy),
		AccuracyUntied: sessions.Num(untiedAccuracy(qs, sp.ps)), LabelMass: sessions.Num(mass)}
	bh := sp.bayesEntropy()
	mf, err := manifoldOf("sula", true, res.Hidden, bh)
	if err != nil {
		return nil, fmt.Errorf("llmsuite: SULA manifold: %w", err)
	}
	out.Manifold = mf
	ks := make([]float64, len(sp.ps))
	for i, p := range sp.ps {
		ks[i] = float64(p.K)
	}
	out.LengthRho = sessions.Num(diagnostics.Spearman(ks, bh))
	byK := map[int][]int{}
	var kOrder []int
	for i, p := range sp.ps {
		if _, ok := byK[p.K]; !ok {
			kOrder = append(kOrder, p.K)
		}
		byK[p.K] = append(byK[p.K], i)
		out.Prompts = append(out.Prompts, llmrun.SULAPrompt{K: p.K, Text: p.Text,
			Posterior: [2]sessions.Num{sessions.Num(p.Posterior[0]), sessions.Num(p.Posterior[1])},
			Model:     [2]sessions.Num{sessions.Num(qs[i][0]), sessions.Num(qs[i][1])},
			BayesH:    sessions.Num(bh[i]), ModelH: sessions.Num(diagnostics.Entropy(qs[i][:]))})
	}
	for _, k := range kOrder {
		idx := byK[k]
		s := sp.calibration(qs, idx)
		var pc []float64
		for _, i := range idx {
			pc = append(pc, float64(mf.Points[i][0]))
		}
		mean, sd := derived.MeanSD(pc)
		out.ByK = append(out.ByK, llmrun.SULAK{K: k, N: len(idx), EntropyError: sessions.Num(s.BitErrorSample),
			ModelEntropy: sessions.Num(s.PerPosition.ModelEntropy[0]), BayesEntropy: sessions.Num(s.PerPosition.BayesEntropy[0]),
			KLBits: sessions.Num(s.KLBits), Accuracy: sessions.Num(s.Accuracy), PC1Mean: sessions.Num(mean), PC1SD: sessions.Num(sd)})
	}
	return out, nil
}

// untiedAccuracy is the share of the prompts with an untied posterior whose likelier label
// the distribution q also makes likelier (a tie in q counts ½); NaN when every posterior ties.
func untiedAccuracy(qs [][2]float64, ps []sula.Prompt) float64 {
	var right, n float64
	for i, p := range ps {
		if p.Posterior[0] == p.Posterior[1] {
			continue
		}
		n++
		switch want := p.Posterior[0] > p.Posterior[1]; {
		case qs[i][0] == qs[i][1]:
			right += 0.5
		case (qs[i][0] > qs[i][1]) == want:
			right++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return right / n
}
