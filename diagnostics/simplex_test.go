package diagnostics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// simplexCase is n posteriors over k states, each near one corner (the corner's mass drawn
// in [lo, 1], the rest spread), and states that embed them in dim dimensions: linearly
// (x = post·W + noise) or at random (x independent of post).
func simplexCase(n, k, dim int, lo, noise float64, linear bool, seed uint64) (x, post []float64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	post = make([]float64, n*k)
	for i := range n {
		c := i % k
		m := lo + (1-lo)*rng.Float64()
		for s := range k {
			post[i*k+s] = (1 - m) / float64(k-1)
		}
		post[i*k+c] = m
	}
	w := make([]float64, k*dim)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	x = make([]float64, n*dim)
	for i := range n {
		for q := range dim {
			v := noise * rng.NormFloat64()
			if linear {
				for s := range k {
					v += post[i*k+s] * w[s*dim+q]
				}
			} else {
				v += rng.NormFloat64()
			}
			x[i*dim+q] = v
		}
	}
	return x, post
}

// TestSimplexGeometry: states that are a linear image of near-corner posteriors cluster by
// state (purity 1), decode the posterior linearly (R² ≈ 1) and have their cluster centres
// near the corners; random states do none of it.
func TestSimplexGeometry(t *testing.T) {
	const n, k, dim = 400, 5, 12
	for _, c := range []struct {
		name                 string
		linear               bool
		noise                float64
		minPurity, maxPurity float64
		minR2, maxR2         float64
		maxCorner            float64
	}{
		// The centres map to the clusters' mean posterior, mass 0.9 on the corner and 0.025 on
		// each other state: √(0.1² + 4·0.025²) ≈ 0.112 from the corner.
		{"corners, linear", true, 0.01, 1, 1, 0.99, 1, 0.125},
		{"random states", false, 0, 0, 0.45, -1, 0.1, math.Inf(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, post := simplexCase(n, k, dim, 0.8, c.noise, c.linear, 3)
			s, err := SimplexGeometry(x, n, dim, post, k, 1)
			if err != nil {
				t.Fatal(err)
			}
			if s.Purity < c.minPurity || s.Purity > c.maxPurity {
				t.Errorf("purity %.3f, want in [%g, %g]", s.Purity, c.minPurity, c.maxPurity)
			}
			if s.R2 < c.minR2 || s.R2 > c.maxR2 {
				t.Errorf("R² %.4f, want in [%g, %g]", s.R2, c.minR2, c.maxR2)
			}
			if s.MeanCornerDist > c.maxCorner {
				t.Errorf("mean corner distance %.3f, want ≤ %g (%v)", s.MeanCornerDist, c.maxCorner, s.CornerDist)
			}
			t.Logf("purity %.3f R² %.4f corner %.3f", s.Purity, s.R2, s.MeanCornerDist)
		})
	}
	if _, err := SimplexGeometry(make([]float64, 3), 3, 1, make([]float64, 15), 5, 1); err == nil {
		t.Errorf("n ≤ k: no error")
	}
	if _, err := SimplexGeometry([]float64{1, math.NaN(), 0, 1, 2, 3, 4}, 7, 1, make([]float64, 14), 2, 1); err == nil {
		t.Errorf("NaN state: no error")
	}
}

// TestKMeansAndPurity: three separated blobs are found exactly; Purity counts each
// cluster's majority.
func TestKMeansAndPurity(t *testing.T) {
	x := []float64{0, 0, 0.1, 0, 0, 0.1, 10, 10, 10.1, 10, 10, 10.1, -10, 5, -10.1, 5}
	labels, centres := KMeans(x, 8, 2, 3, 7)
	truth := []int{0, 0, 0, 1, 1, 1, 2, 2}
	if p := Purity(labels, truth, 3); p != 1 {
		t.Errorf("purity %.3f of labels %v, want 1", p, labels)
	}
	if len(centres) != 6 {
		t.Fatalf("centres %v", centres)
	}
	if p := Purity([]int{0, 0, 0, 0}, []int{0, 1, 1, 2}, 3); p != 0.5 {
		t.Errorf("one cluster over labels 0,1,1,2: purity %g, want 0.5", p)
	}
	r2, _, err := LinearR2([]float64{0, 1, 2, 3}, 4, 1, []float64{1, 3, 5, 7}, 1)
	if err != nil || math.Abs(r2-1) > 1e-12 {
		t.Errorf("exact line: R² %g, %v", r2, err)
	}
}
