package lab

import (
	"fmt"

	"gorgonia.org/tensor"

	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
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

// simplexOf is derived.MeasureSimplex of the final layer's states on the run's tunnel (an
// hmm: its observed symbols measured too), with the value manifold's number of points.
func (t *Trainer) simplexOf(final []float64, b *tunnels.Batch, width int) (*sessions.Simplex, error) {
	h, ok := t.tunnel.(*tunnels.HMM)
	if !ok {
		return derived.MeasureSimplex(final, b, width, nil, 0, t.cfg.Seed, manifoldPoints)
	}
	_, o, _ := h.Sizes()
	return derived.MeasureSimplex(final, b, width, h.ObservedSymbols(b), o, t.cfg.Seed, manifoldPoints)
}
