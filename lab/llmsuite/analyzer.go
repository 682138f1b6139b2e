package llmsuite

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"windtunnel/diagnostics"
	"windtunnel/models/llm"
	"windtunnel/sessions/llmrun"
	"windtunnel/tunnels/sula"
)

// Analyzer answers the interactive view (tui/llmview) for one model: a prompt's
// next-token distribution, its SULA posterior, its place on the entropy axis fitted to
// reference SULA prompts, and its focusing by layer. Analyze may be called from one
// goroutine at a time.
type Analyzer struct {
	m  *llm.Model
	sp *sulaSpec
	// The reference axis: the standardised hidden states' PC1, running from low to high
	// posterior entropy, with the reference prompts' extent on it.
	mean, sd, axis []float64
	lo, hi         float64
	lowH, highH    float64
}

// NewAnalyzer fits the entropy axis on perK SULA prompts per k (seeded) run through m.
func NewAnalyzer(ctx context.Context, m *llm.Model, seed uint64, perK int) (*Analyzer, error) {
	sp, err := sulaPrompts(m, Options{Seed: seed, PerK: perK}, false)
	if err != nil {
		return nil, err
	}
	res, err := m.Forward(ctx, llm.Request{Seqs: sp.seqs})
	if err != nil {
		return nil, err
	}
	n, dim := len(sp.seqs), m.Config.Hidden
	x := widen(res.Hidden)
	a := &Analyzer{m: m, sp: sp}
	a.mean, a.sd = diagnostics.ColumnStats(x, n, dim)
	std := diagnostics.Standardize(x, n, dim)
	if a.axis, _, err = diagnostics.PrincipalAxis(std, n, dim); err != nil {
		return nil, fmt.Errorf("llmsuite: entropy axis: %w", err)
	}
	coords := diagnostics.Project(std, n, dim, a.axis)
	bh := sp.bayesEntropy()
	if diagnostics.Pearson(coords, bh) < 0 {
		for j := range a.axis {
			a.axis[j] = -a.axis[j]
		}
		for i := range coords {
			coords[i] = -coords[i]
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(coords[i], coords[j]) })
	a.lo, a.hi = coords[order[0]], coords[order[n-1]]
	tenth := max(1, n/10)
	for _, i := range order[:tenth] {
		a.lowH += bh[i] / float64(tenth)
	}
	for _, i := range order[n-tenth:] {
		a.highH += bh[i] / float64(tenth)
	}
	return a, nil
}

// Describe names the model.
func (a *Analyzer) Describe() string {
	c := a.m.Config
	return fmt.Sprintf("%s: %s %d×%d, %d heads (%d key/value); SULA labels %q %q", filepath.Base(a.m.Dir), c.Family, c.Layers, c.Hidden, c.Heads, c.KVHeads, a.sp.labels[0], a.sp.labels[1])
}

// Example returns the i-th reference SULA prompt, cycling over the numbers of examples k
// (k = 0, 1, 2, … then the next prompt of each k), so that successive presses of tab in the
// view show the posterior moving with the evidence rather than walking every prompt of
// k = 0 first.
func (a *Analyzer) Example(i int) string {
	return a.sp.ps[byKRoundRobin(a.sp.ps)[i%len(a.sp.ps)]].Text
}

// byKRoundRobin is an order of ps taking one prompt of each k in turn (k ascending, each k's
// prompts in their order), until all are taken.
func byKRoundRobin(ps []sula.Prompt) []int {
	byK := map[int][]int{}
	var ks []int
	for i, p := range ps {
		if _, ok := byK[p.K]; !ok {
			ks = append(ks, p.K)
		}
		byK[p.K] = append(byK[p.K], i)
	}
	slices.Sort(ks)
	out := make([]int, 0, len(ps))
	for round := 0; len(out) < len(ps); round++ {
		for _, k := range ks {
			if round < len(byK[k]) {
				out = append(out, byK[k][round])
			}
		}
	}
	return out
}

// Analyze runs prompt through the model.
func (a *Analyzer) Analyze(ctx context.Context, prompt string) (llmrun.Analysis, error) {
	m := a.m
	c := m.Config
	ids, err := m.Encode(prompt, true)
	if err != nil {
		return llmrun.Analysis{}, err
	}
	if len(ids) == 0 || len(ids) > m.MaxTokens() {
		return llmrun.Analysis{}, fmt.Errorf("the prompt is %d tokens; the model takes 1..%d", len(ids), m.MaxTokens())
	}
	ent := make([]float64, c.Layers*c.Heads)
	res, err := m.Forward(ctx, llm.Request{Seqs: [][]int{ids}, Taps: &llm.Taps{Attention: func(l int, _ *llm.Chunk, _, h, r0 int, p []float32, t int) {
		if r0+len(p)/t < t {
			return // the last query's row comes in the last block
		}
		row := make([]float64, t)
		for j, v := range p[len(p)-t:] {
			row[j] = float64(v)
		}
		ent[l*c.Heads+h] = diagnostics.Entropy(row)
	}}})
	if err != nil {
		return llmrun.Analysis{}, err
	}
	logits := res.Logits[0]
	out := llmrun.Analysis{Prompt: prompt, Entropy: nextEntropy(logits), Uniform: math.Log2(float64(len(ids)))}
	for _, id := range ids {
		out.Tokens = append(out.Tokens, m.Tokenizer.DisplayToken(id))
	}
	p := make([]float64, len(logits))
	for i, v := range logits {
		p[i] = float64(v)
	}
	diagnostics.SoftmaxInto(p, p)
	order := make([]int, len(p))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(p[j], p[i]) })
	for _, id := range order[:min(10, len(order))] {
		out.Top = append(out.Top, llmrun.Candidate{Token: m.Tokenizer.DisplayToken(id), P: p[id]})
	}
	if n1, n2, ok := sula.Parse(prompt, a.sp.labels); ok {
		q, _ := a.sp.labelDist(logits)
		out.SULA = &llmrun.SULAView{Labels: a.sp.labels, N: [2]int{n1, n2}, Exact: sula.Posterior(n1, n2, sula.Alpha), Model: q}
	}
	h := widen(res.Hidden)
	std := make([]float64, len(h))
	diagnostics.StandardizeRow(std, h, a.mean, a.sd)
	out.Axis = &llmrun.AxisView{Coord: diagnostics.Project(std, 1, len(std), a.axis)[0], Min: a.lo, Max: a.hi, LowH: a.lowH, HighH: a.highH,
		Reference: fmt.Sprintf("%d SULA prompts", len(a.sp.ps))}
	for l := range c.Layers {
		var s float64
		for hd := range c.Heads {
			s += ent[l*c.Heads+hd]
		}
		out.Focus = append(out.Focus, s/float64(c.Heads))
	}
	return out, nil
}
