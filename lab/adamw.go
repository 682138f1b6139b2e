package lab

import (
	"fmt"
	"math"

	"windtunnel/backends/par"
	"windtunnel/models"
)

// AdamW is decoupled-weight-decay Adam (β1, β2, eps, decay) with global-norm gradient
// clipping, updating the parameters in place.
type AdamW struct {
	Beta1, Beta2, Eps, Decay float64
	// Clip is the global gradient-norm limit; 0 disables clipping.
	Clip float64
	// GroupLR multiplies the learning rate per parameter group (missing groups: 1).
	GroupLR map[models.Group]float64
	// Workers is how many goroutines share the update (0 or 1: the caller's alone). Every
	// element's update is independent, so the result does not depend on it.
	Workers int

	t    int
	m, v [][]float64
	w32  [][]float32 // cached views of the parameters and gradients (float32 models)
	g32  [][]float32
	w64  [][]float64
	g64  [][]float64
	runs []adamRun // the update's pieces, at most adamRunLen elements each
	plr  []float64 // each parameter's learning rate this step
}

// adamRun is elements [lo, hi) of parameter i.
type adamRun struct{ i, lo, hi int }

// adamRunLen is the most elements one piece of the update covers: small enough that two
// workers share even the paper model's 2.6M updates evenly, large enough that dealing the
// pieces costs nothing measurable.
const adamRunLen = 1 << 15

// NewAdamW returns AdamW with β = (0.9, 0.999), eps 1e-8, the given decay and clip.
func NewAdamW(decay, clip float64) *AdamW {
	return &AdamW{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Decay: decay, Clip: clip}
}

// State returns the update count and the moment estimates (nil before the first Step),
// one slice per parameter; the slices are the optimiser's own.
func (o *AdamW) State() (t int, m, v [][]float64) { return o.t, o.m, o.v }

// SetState replaces the update count and moments (copied) for parameters of the given sizes.
func (o *AdamW) SetState(t int, m, v [][]float64, ps []models.Param) error {
	if len(m) != len(ps) || len(v) != len(ps) {
		return fmt.Errorf("lab: optimiser state for %d/%d parameters, model has %d", len(m), len(v), len(ps))
	}
	for i, p := range ps {
		if n := p.Value.Shape().TotalSize(); len(m[i]) != n || len(v[i]) != n {
			return fmt.Errorf("lab: optimiser state for %s has %d/%d elements, want %d", p.Name, len(m[i]), len(v[i]), n)
		}
	}
	o.m, o.v = nil, nil
	o.w32, o.g32, o.w64, o.g64, o.runs = nil, nil, nil, nil, nil
	o.init(ps)
	for i := range ps {
		copy(o.m[i], m[i])
		copy(o.v[i], v[i])
	}
	o.t = t
	return nil
}

func (o *AdamW) init(ps []models.Param) {
	for i, p := range ps {
		n := p.Value.Shape().TotalSize()
		for lo := 0; lo < n; lo += adamRunLen {
			o.runs = append(o.runs, adamRun{i: i, lo: lo, hi: min(n, lo+adamRunLen)})
		}
		o.m = append(o.m, make([]float64, n))
		o.v = append(o.v, make([]float64, n))
		switch w := p.Value.Data().(type) {
		case []float32:
			o.w32 = append(o.w32, w)
			o.g32 = append(o.g32, p.Grad.Data().([]float32))
		case []float64:
			o.w64 = append(o.w64, w)
			o.g64 = append(o.g64, p.Grad.Data().([]float64))
		}
	}
}

// GradNorm returns the global L2 norm of the gradients.
func GradNorm(ps []models.Param) float64 {
	s := 0.0
	for _, p := range ps {
		switch g := p.Grad.Data().(type) {
		case []float32:
			for _, x := range g {
				s += float64(x) * float64(x)
			}
		case []float64:
			for _, x := range g {
				s += x * x
			}
		}
	}
	return math.Sqrt(s)
}

// Step applies one update at learning rate lr and returns the gradient norm before clipping.
//
// The parameter set must be the same on every call (the optimiser caches views of it).
func (o *AdamW) Step(ps []models.Param, lr float64) float64 {
	if o.m == nil {
		o.init(ps)
	}
	norm := o.gradNorm(ps)
	scale := 1.0
	if o.Clip > 0 && norm > o.Clip {
		scale = o.Clip / (norm + 1e-6)
	}
	o.t++
	bc1 := 1 - math.Pow(o.Beta1, float64(o.t))
	bc2 := 1 - math.Pow(o.Beta2, float64(o.t))
	if len(o.plr) != len(ps) {
		o.plr = make([]float64, len(ps))
	}
	plr := o.plr
	for i, p := range ps {
		plr[i] = lr
		if f, ok := o.GroupLR[p.Group]; ok {
			plr[i] *= f
		}
	}
	par.Pool{Workers: max(1, o.Workers)}.Each(len(o.runs), func(_, r int) {
		run := o.runs[r]
		o.update(run.i, run.lo, run.hi, plr[run.i], scale, bc1, bc2)
	})
	return norm
}

// update applies the step to elements [lo, hi) of parameter i.
func (o *AdamW) update(i, lo, hi int, plr, scale, bc1, bc2 float64) {
	m, v := o.m[i][lo:hi], o.v[i][lo:hi]
	if o.w32 != nil {
		w, g := o.w32[i][lo:hi], o.g32[i][lo:hi]
		for j := range w {
			gj := float64(g[j]) * scale
			m[j] = o.Beta1*m[j] + (1-o.Beta1)*gj
			v[j] = o.Beta2*v[j] + (1-o.Beta2)*gj*gj
			x := float64(w[j]) * (1 - plr*o.Decay)
			w[j] = float32(x - plr*(m[j]/bc1)/(math.Sqrt(v[j]/bc2)+o.Eps))
		}
		return
	}
	w, g := o.w64[i][lo:hi], o.g64[i][lo:hi]
	for j := range w {
		gj := g[j] * scale
		m[j] = o.Beta1*m[j] + (1-o.Beta1)*gj
		v[j] = o.Beta2*v[j] + (1-o.Beta2)*gj*gj
		x := w[j] * (1 - plr*o.Decay)
		w[j] = x - plr*(m[j]/bc1)/(math.Sqrt(v[j]/bc2)+o.Eps)
	}
}

// Schedule is linear warm-up to Peak over Warmup steps, then cosine decay to 0 at Total.
type Schedule struct {
	Peak          float64
	Warmup, Total int
}

// At returns the learning rate for 0-based step s (the same curve as the PyTorch reference).
func (s Schedule) At(step int) float64 {
	w := 1.0
	if s.Warmup > 0 {
		w = math.Min(1, float64(step+1)/float64(s.Warmup))
	}
	frac := math.Min(1, float64(step)/float64(max(1, s.Total)))
	return s.Peak * w * 0.5 * (1 + math.Cos(math.Pi*frac))
}

func (o *AdamW) gradNorm(ps []models.Param) float64 {
	s := 0.0
	for _, g := range o.g32 {
		for _, x := range g {
			s += float64(x) * float64(x)
		}
	}
	for _, g := range o.g64 {
		for _, x := range g {
			s += x * x
		}
	}
	return math.Sqrt(s)
}
