package lab

import (
	"fmt"

	"windtunnel/backends/par"
	"windtunnel/models"
	"windtunnel/sessions/runconfig"
)

// optimizer updates a model's parameters in place from their gradients: AdamW or SGD.
type optimizer interface {
	// Step applies one update at learning rate lr and returns the gradient norm before
	// clipping.
	Step(ps []models.Param, lr float64) float64
	// State returns the update count and the moments (nil where the optimiser keeps none).
	State() (t int, m, v [][]float64)
	// SetState restores the update count and, where the optimiser keeps them, the moments.
	SetState(t int, m, v [][]float64, ps []models.Param) error
}

// newOptimizer returns the optimiser cfg names (runconfig.OptimizerSGD or AdamW), with
// the learning-rate multipliers of the value and query/key projections.
func newOptimizer(cfg runconfig.Config, workers int) optimizer {
	group := map[models.Group]float64{models.GroupValue: cfg.ValueLR, models.GroupQK: cfg.QKLR}
	if cfg.Optimizer == runconfig.OptimizerSGD {
		return &SGD{Decay: cfg.WeightDecay, Clip: cfg.Clip, GroupLR: group, Workers: workers}
	}
	o := NewAdamW(cfg.WeightDecay, cfg.Clip)
	o.GroupLR, o.Workers = group, workers
	return o
}

// SGD is plain gradient descent (no momentum) with global-norm gradient clipping and a
// weight decay at the base learning rate:
//
//	w ← w·(1 − lr·Decay) − lr·f·g
//
// where f is the parameter's group multiplier (GroupLR): it scales the gradient step only,
// never the decay, unlike AdamW, whose decoupled decay follows each group's learning rate.
// With Decay 0 and Clip 0 it is torch.optim.SGD(lr) with per-group learning rates.
type SGD struct {
	Decay float64
	// Clip is the global gradient-norm limit; 0 disables clipping.
	Clip float64
	// GroupLR multiplies the gradient step per parameter group (missing groups: 1).
	GroupLR map[models.Group]float64
	// Workers is how many goroutines share the update (0 or 1: the caller's alone); every
	// element's update is independent, so the result does not depend on it.
	Workers int

	t int
}

// State returns the update count; SGD keeps no moments.
func (o *SGD) State() (t int, m, v [][]float64) { return o.t, nil, nil }

// SetState sets the update count; the moments (a checkpoint's zeros) are checked for size
// and otherwise ignored.
func (o *SGD) SetState(t int, m, v [][]float64, ps []models.Param) error {
	if m != nil && len(m) != len(ps) || v != nil && len(v) != len(ps) {
		return fmt.Errorf("lab: optimiser state for %d/%d parameters, model has %d", len(m), len(v), len(ps))
	}
	o.t = t
	return nil
}

// Step applies one update at learning rate lr and returns the gradient norm before clipping.
func (o *SGD) Step(ps []models.Param, lr float64) float64 {
	norm := GradNorm(ps)
	scale := 1.0
	if o.Clip > 0 && norm > o.Clip {
		scale = o.Clip / (norm + 1e-6)
	}
	o.t++
	shrink := 1 - lr*o.Decay
	par.Pool{Workers: max(1, o.Workers)}.Each(len(ps), func(_, i int) {
		p := ps[i]
		step := lr * scale
		if f, ok := o.GroupLR[p.Group]; ok {
			step *= f
		}
		switch w := p.Value.Data().(type) {
		case []float32:
			g := p.Grad.Data().([]float32)
			for j := range w {
				w[j] = float32(float64(w[j])*shrink - step*float64(g[j]))
			}
		case []float64:
			g := p.Grad.Data().([]float64)
			for j := range w {
				w[j] = w[j]*shrink - step*g[j]
			}
		}
	})
	return norm
}
