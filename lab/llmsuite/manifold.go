package llmsuite

import (
	"fmt"
	"math"

	"windtunnel/diagnostics"
	"windtunnel/models/llm"
	"windtunnel/sessions"
	"windtunnel/sessions/llmrun"
)

// manifolds computes each set's value manifold from the pass's last-position hidden states
// and logits (the sets' prompts in order); a set that cannot be measured is a warning.
func manifolds(sets []setSpec, res llm.Result) ([]llmrun.Set, []string) {
	var out []llmrun.Set
	var warn []string
	a := 0
	for _, s := range sets {
		n := len(s.seqs)
		ent := make([]float64, n)
		for i := range n {
			ent[i] = nextEntropy(res.Logits[a+i])
		}
		set, err := manifoldOf(s.name, s.domain, res.Hidden[a:a+n], ent)
		a += n
		if err != nil {
			warn = append(warn, fmt.Sprintf("manifold %s: %v", s.name, err))
			continue
		}
		out = append(out, set)
	}
	return out, warn
}

// manifoldOf is the standardised PCA of hidden (one row per prompt) against entropy.
func manifoldOf(name string, domain bool, hidden [][]float32, entropy []float64) (llmrun.Set, error) {
	n := len(hidden)
	if n < 3 {
		return llmrun.Set{}, fmt.Errorf("%d prompts, need at least 3", n)
	}
	dim := len(hidden[0])
	x := widen(hidden)
	mf, err := diagnostics.ValueManifold(diagnostics.Standardize(x, n, dim), n, dim, entropy, 0)
	if err != nil {
		return llmrun.Set{}, err
	}
	s := llmrun.Set{Name: name, Domain: domain, N: n, Spearman: sessions.Num(mf.Spearman), Pearson: sessions.Num(mf.Pearson)}
	for _, v := range mf.Share {
		s.Share = append(s.Share, sessions.Num(v))
	}
	for i, p := range mf.Points {
		pt := [2]sessions.Num{sessions.Num(p[0]), sessions.Num(math.NaN())}
		if len(p) > 1 {
			pt[1] = sessions.Num(p[1])
		}
		s.Points = append(s.Points, pt)
		s.Entropy = append(s.Entropy, sessions.Num(mf.Entropy[i]))
	}
	return s, nil
}

// widen flattens rows of float32 into one float64 matrix.
func widen(rows [][]float32) []float64 {
	if len(rows) == 0 {
		return nil
	}
	dim := len(rows[0])
	x := make([]float64, len(rows)*dim)
	for i, r := range rows {
		for j, v := range r {
			x[i*dim+j] = float64(v)
		}
	}
	return x
}

// nextEntropy is the entropy in bits of the softmax of logits.
func nextEntropy(logits []float32) float64 {
	l := make([]float64, len(logits))
	for i, v := range logits {
		l[i] = float64(v)
	}
	return diagnostics.Entropy(diagnostics.SoftmaxInto(l, l))
}
