package lab

import (
	"fmt"

	"gorgonia.org/tensor"

	"windtunnel/diagnostics"
	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// simplexInit is the belief simplex of the same model untrained — rebuilt from the seed as
// New builds it (initialParams' route), probed on the geometry batch b — without the
// figure's points: the null of Paper I's simplex claim (an untrained model of the same
// shape). It is computed at the first hmm snapshot and reused (it cannot change).
func (t *Trainer) simplexInit(b *tunnels.Batch) (*sessions.Simplex, error) {
	if t.geo.simplexInitDone {
		return t.geo.simplexInit, nil
	}
	dt := tensor.Float32
	if cur := t.model.Params(); len(cur) > 0 {
		dt = cur[0].Value.Dtype()
	}
	m, _, err := buildModel(t.cfg, t.tunnel, models.Options{Dtype: dt, Workers: 1, Seed: t.cfg.Seed})
	if err != nil {
		return nil, fmt.Errorf("lab: belief simplex at initialisation: %w", err)
	}
	pr, err := models.ProbeChunks(m, t.tunnel, b, t.evalChunkAt(t.tunnel, b.N), 0)
	if err != nil {
		return nil, fmt.Errorf("lab: belief simplex at initialisation: %w", err)
	}
	if pr.Final == nil {
		t.geo.simplexInitDone = true
		return nil, nil
	}
	s, err := t.simplexOf(pr.Final, b, pr.Width)
	if err != nil {
		return nil, fmt.Errorf("%w (at initialisation)", err)
	}
	s.Points, s.Argmax = nil, nil
	t.geo.simplexInit, t.geo.simplexInitDone = s, true
	return s, nil
}

// simplexOf measures the belief simplex of the final layer's states (N·P × width) against
// the batch's exact posteriors over the hidden states (diagnostics.SimplexGeometry), the same
// clusters' purity against the symbol observed at each point (symbols, values 0..o−1; nil:
// not measured), with the states' PC1 and PC2 for the figure: ValueManifold's subsample, each
// point's argmax state carried through it in the entropy's place.
func simplexOf(final []float64, b *tunnels.Batch, width int, symbols []int, o int, seed uint64) (*sessions.Simplex, error) {
	n := b.N * b.P
	g, err := diagnostics.SimplexGeometry(final, n, width, b.Posterior, b.C, seed)
	if err != nil {
		return nil, fmt.Errorf("lab: belief simplex: %w", err)
	}
	state := make([]float64, n)
	for i, a := range g.Argmax {
		state[i] = float64(a)
	}
	m, err := diagnostics.ValueManifold(final, n, width, state, manifoldPoints)
	if err != nil {
		return nil, fmt.Errorf("lab: belief simplex: %w", err)
	}
	out := &sessions.Simplex{States: g.States, Purity: sessions.Num(g.Purity), R2: sessions.Num(g.R2),
		MeanCornerDist: sessions.Num(g.MeanCornerDist), N: n}
	if len(symbols) == n {
		out.SymbolPurity = sessions.Num(diagnostics.Purity(g.Labels, symbols, o))
	}
	for _, d := range g.CornerDist {
		out.CornerDist = append(out.CornerDist, sessions.Num(d))
	}
	for i, p := range m.Points {
		if len(p) < 2 {
			break // one principal component: nothing to draw
		}
		out.Points = append(out.Points, [2]float64{p[0], p[1]})
		out.Argmax = append(out.Argmax, int(m.Entropy[i]))
	}
	return out, nil
}

// simplexOf is simplexOf for the run's tunnel (an hmm: its observed symbols measured too).
func (t *Trainer) simplexOf(final []float64, b *tunnels.Batch, width int) (*sessions.Simplex, error) {
	h, ok := t.tunnel.(*tunnels.HMM)
	if !ok {
		return simplexOf(final, b, width, nil, 0, t.cfg.Seed)
	}
	_, o, _ := h.Sizes()
	return simplexOf(final, b, width, h.ObservedSymbols(b), o, t.cfg.Seed)
}
