package lab

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/models"
)

// adamParams returns float32 parameters of the given sizes (some larger than one piece of
// the update) with seeded values and gradients.
func adamParams(seed uint64, sizes ...int) []models.Param {
	rng := rand.New(rand.NewPCG(seed, 1))
	ps := make([]models.Param, len(sizes))
	for i, n := range sizes {
		w, g := make([]float32, n), make([]float32, n)
		for j := range w {
			w[j], g[j] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		group := models.GroupOther
		if i == 1 {
			group = models.GroupValue
		}
		ps[i] = models.Param{Name: string(rune('a' + i)), Group: group,
			Value: tensor.New(tensor.WithShape(1, n), tensor.WithBacking(w)),
			Grad:  tensor.New(tensor.WithShape(1, n), tensor.WithBacking(g))}
	}
	return ps
}

// TestAdamWUpdate: three clipped steps match the update written out element by element in
// float64 (decoupled decay, bias correction, per-group learning rate, global-norm clip),
// and every worker count gives bit-identical parameters.
func TestAdamWUpdate(t *testing.T) {
	sizes := []int{7, 3*adamRunLen + 5, adamRunLen, 1}
	const lr, decay, clip, tol = 1e-2, 0.1, 1.0, 2e-7
	groupLR := map[models.Group]float64{models.GroupValue: 0.5}
	var results [][]float32
	for _, workers := range []int{0, 1, 2, 5} {
		ps := adamParams(3, sizes...)
		// The reference, in float64 from the same start.
		type ref struct{ w, m, v []float64 }
		refs := make([]ref, len(ps))
		for i, p := range ps {
			w := p.Value.Data().([]float32)
			refs[i] = ref{make([]float64, len(w)), make([]float64, len(w)), make([]float64, len(w))}
			for j, x := range w {
				refs[i].w[j] = float64(x)
			}
		}
		o := NewAdamW(decay, clip)
		o.GroupLR, o.Workers = groupLR, workers
		for step := 1; step <= 3; step++ {
			norm := 0.0
			for _, p := range ps {
				for _, g := range p.Grad.Data().([]float32) {
					norm += float64(g) * float64(g)
				}
			}
			norm = math.Sqrt(norm)
			if got := o.Step(ps, lr); math.Abs(got-norm) > 1e-9*norm {
				t.Fatalf("workers %d step %d: norm %v, want %v", workers, step, got, norm)
			}
			scale := clip / (norm + 1e-6)
			for i, p := range ps {
				plr := lr
				if f, ok := groupLR[p.Group]; ok {
					plr *= f
				}
				r := refs[i]
				for j, g32 := range p.Grad.Data().([]float32) {
					g := float64(g32) * scale
					r.m[j] = 0.9*r.m[j] + 0.1*g
					r.v[j] = 0.999*r.v[j] + 0.001*g*g
					mh, vh := r.m[j]/(1-math.Pow(0.9, float64(step))), r.v[j]/(1-math.Pow(0.999, float64(step)))
					r.w[j] = float64(float32(r.w[j]*(1-plr*decay) - plr*mh/(math.Sqrt(vh)+1e-8)))
				}
			}
		}
		var all []float32
		for i, p := range ps {
			for j, x := range p.Value.Data().([]float32) {
				if d := math.Abs(float64(x) - refs[i].w[j]); d > tol*math.Max(1, math.Abs(refs[i].w[j])) {
					t.Fatalf("workers %d: %s[%d] = %v, reference %v", workers, p.Name, j, x, refs[i].w[j])
				}
			}
			all = append(all, p.Value.Data().([]float32)...)
		}
		results = append(results, all)
	}
	for k := 1; k < len(results); k++ {
		for j := range results[0] {
			if results[k][j] != results[0][j] {
				t.Fatalf("worker counts disagree at element %d: %v vs %v", j, results[k][j], results[0][j])
			}
		}
	}
}
