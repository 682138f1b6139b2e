package lab

import (
	"fmt"
	"slices"
	"windtunnel/models/arch"

	"gorgonia.org/tensor"

	"windtunnel/diagnostics"
	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// normEps is the epsilon of the transformer's RMSNorm (models.NewTransformer). The cosine
// the authors' key orthogonality takes is invariant to it; it is passed so the keys are the
// layer's.
const normEps = 1e-5

// valueTokens are the tokens the authors' key orthogonality is taken over: the tunnel's
// class tokens when its classes are input tokens (bijection values, recall values), else the
// evidence tokens seen in the geometry batch (HMM symbols), ascending; nil when there are
// fewer than 2.
func valueTokens(tn tunnels.Tunnel, evTok map[int]bool) []int {
	var toks []int
	if off, ok := tn.ClassTokens(); ok {
		for c := range tn.Classes() {
			toks = append(toks, off+c)
		}
	} else {
		for tok := range evTok {
			toks = append(toks, tok)
		}
		slices.Sort(toks)
	}
	if len(toks) < 2 {
		return nil
	}
	return toks
}

// embedKeyOrthogonality is the authors' key orthogonality of a transformer's parameters ps
// over tokens, [layer][head] (diagnostics.EmbedKeyOrthogonality): rows of "tok", each
// layer's "layerL.norm1" gain and "layerL.wk".
func embedKeyOrthogonality(ps []models.Param, tokens []int, layers, heads int) ([][]float64, error) {
	byName := make(map[string]models.Param, len(ps))
	for _, p := range ps {
		byName[p.Name] = p
	}
	get := func(name string) ([]float64, int, int, error) {
		p, ok := byName[name]
		if !ok {
			return nil, 0, 0, fmt.Errorf("lab: embedding key orthogonality: the model has no parameter %q", name)
		}
		sh := p.Value.Shape()
		if len(sh) != 2 {
			return nil, 0, 0, fmt.Errorf("lab: embedding key orthogonality: parameter %s has shape %v, want a matrix", name, sh)
		}
		return widenParam(p.Value), sh[0], sh[1], nil
	}
	tok, vocab, d, err := get("tok")
	if err != nil {
		return nil, err
	}
	emb := make([]float64, 0, len(tokens)*d)
	for _, id := range tokens {
		if id < 0 || id >= vocab {
			return nil, fmt.Errorf("lab: embedding key orthogonality: token %d outside the embedding's %d rows", id, vocab)
		}
		emb = append(emb, tok[id*d:(id+1)*d]...)
	}
	out := make([][]float64, layers)
	for l := range layers {
		g, _, gd, err := get(fmt.Sprintf("layer%d.norm1", l))
		if err != nil {
			return nil, err
		}
		wk, wr, width, err := get(fmt.Sprintf("layer%d.wk", l))
		if err != nil {
			return nil, err
		}
		if gd != d || wr != d {
			return nil, fmt.Errorf("lab: embedding key orthogonality: layer %d: norm gain %d and W_K %d rows for width %d", l, gd, wr, d)
		}
		if out[l], err = diagnostics.EmbedKeyOrthogonality(emb, len(tokens), d, g, normEps, wk, width, heads); err != nil {
			return nil, fmt.Errorf("lab: embedding key orthogonality layer %d: %w", l, err)
		}
	}
	return out, nil
}

// widenParam copies a float32 or float64 tensor into float64.
func widenParam(v *tensor.Dense) []float64 {
	switch d := v.Data().(type) {
	case []float32:
		out := make([]float64, len(d))
		for i, x := range d {
			out[i] = float64(x)
		}
		return out
	case []float64:
		return slices.Clone(d)
	}
	return nil
}

// initialParams rebuilds the model's parameters at initialisation: built as New builds it
// (buildModel: the same specification, tunnel, position-table length, precision and seed),
// on the pure-Go back-end (the draw does not depend on it). A resumed run or a probe of a
// checkpoint gets the same values as step 0 of the run; names and shapes are checked
// against the model's.
func (t *Trainer) initialParams() ([]models.Param, error) {
	cur := t.model.Params()
	dt := tensor.Float32
	if len(cur) > 0 {
		dt = cur[0].Value.Dtype()
	}
	m, _, err := buildModel(t.cfg, t.tunnel, models.Options{Dtype: dt, Workers: 1, Seed: t.cfg.Seed})
	if err != nil {
		return nil, fmt.Errorf("lab: rebuilding the initial parameters: %w", err)
	}
	ps := m.Params()
	if len(ps) != len(cur) {
		return nil, fmt.Errorf("lab: rebuilding the initial parameters: %d parameters, the model has %d", len(ps), len(cur))
	}
	for i, p := range ps {
		if p.Name != cur[i].Name || !p.Value.Shape().Eq(cur[i].Value.Shape()) {
			return nil, fmt.Errorf("lab: rebuilding the initial parameters: %s %v, the model's %s %v",
				p.Name, p.Value.Shape(), cur[i].Name, cur[i].Value.Shape())
		}
	}
	return ps, nil
}

// embedKeys records the authors' key orthogonality in sn, now and at initialisation (the
// latter computed once per trainer and reused: it cannot change). evTok are the evidence
// tokens of the geometry batch.
func (t *Trainer) embedKeys(sn *sessions.Snapshot, evTok map[int]bool) error {
	if t.heads == 0 || t.model.Kind() != arch.KindTransformer {
		return nil
	}
	if !t.geo.embedDone {
		t.geo.embedTokens = valueTokens(t.tunnel, evTok)
		if t.geo.embedTokens != nil {
			ps, err := t.initialParams()
			if err != nil {
				return err
			}
			if t.geo.embedInit, err = embedKeyOrthogonality(ps, t.geo.embedTokens, t.layers, t.heads); err != nil {
				return fmt.Errorf("%w (at initialisation)", err)
			}
		}
		t.geo.embedDone = true
	}
	if t.geo.embedTokens == nil {
		return nil
	}
	now, err := embedKeyOrthogonality(t.model.Params(), t.geo.embedTokens, t.layers, t.heads)
	if err != nil {
		return err
	}
	sn.KeyOrthogonalityEmbed = now
	sn.KeyOrthogonalityEmbedInit = make([][]float64, len(t.geo.embedInit))
	for l, row := range t.geo.embedInit {
		sn.KeyOrthogonalityEmbedInit[l] = slices.Clone(row)
	}
	sn.KeyOrthogonalityEmbedTokens = len(t.geo.embedTokens)
	return nil
}
