package diagnostics

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Simplex is how far a layer's states at the observation positions of an HMM are the
// corners of the belief simplex (Paper I's Mamba figure: one cluster per hidden state): a
// k-means with k = the number of states against the exact posterior's argmax state, the
// linear decodability of the posterior from the states, and where each cluster's centre
// maps on the simplex.
type Simplex struct {
	// States is the number of hidden states k (the posterior's length).
	States int `json:"states"`
	// Purity is the k-means clusters' purity against the argmax state: the fraction of
	// points whose cluster's majority argmax state is their own (1/k or more; 1 is perfect).
	Purity float64 `json:"purity"`
	// R2 is the coefficient of determination of the least-squares affine map from the states
	// to the exact posterior, pooled over the k outputs (1: the posterior is a linear read-out).
	R2 float64 `json:"r2"`
	// CornerDist holds, for each cluster, the Euclidean distance of its centre's image under
	// that map from the simplex corner of its majority state (0 at the corner, √2 at another
	// corner; NaN for an empty cluster). MeanCornerDist is their mean over non-empty clusters.
	CornerDist     []float64 `json:"corner_dist"`
	MeanCornerDist float64   `json:"mean_corner_dist"`
	// Labels is each point's cluster and Argmax each point's argmax state.
	Labels []int `json:"labels"`
	Argmax []int `json:"argmax"`
}

// SimplexGeometry measures the n×dim row-major states x against the n×k row-major exact
// posteriors post: k-means (KMeans, k clusters, seeded) purity against the argmax state, the
// R² of the least-squares map (LinearR2) and each cluster centre's distance from its corner.
// Bad sizes, fewer than k+1 points, or a non-finite value return an error.
func SimplexGeometry(x []float64, n, dim int, post []float64, k int, seed uint64) (Simplex, error) {
	switch {
	case n <= k || dim <= 0 || k < 2:
		return Simplex{}, fmt.Errorf("diagnostics: simplex: need n > k ≥ 2 and dim > 0 (n=%d k=%d dim=%d)", n, k, dim)
	case len(x) != n*dim || len(post) != n*k:
		return Simplex{}, fmt.Errorf("diagnostics: simplex: x has %d values (want %d), post %d (want %d)", len(x), n*dim, len(post), n*k)
	}
	for i, v := range x {
		if !finite(v) {
			return Simplex{}, fmt.Errorf("diagnostics: simplex: x[%d] = %g is not finite", i, v)
		}
	}
	out := Simplex{States: k, Argmax: make([]int, n)}
	for i := range n {
		out.Argmax[i] = argmax(post[i*k : (i+1)*k])
	}
	labels, centres := KMeans(x, n, dim, k, seed)
	out.Labels = labels
	major := majority(labels, out.Argmax, k)
	out.Purity = Purity(labels, out.Argmax, k)
	r2, coef, err := LinearR2(x, n, dim, post, k)
	if err != nil {
		return Simplex{}, fmt.Errorf("diagnostics: simplex: %w", err)
	}
	out.R2 = r2
	out.CornerDist = make([]float64, k)
	var sum float64
	var m int
	for j := range k {
		if major[j] < 0 {
			out.CornerDist[j] = math.NaN()
			continue
		}
		img := affine(coef, centres[j*dim:(j+1)*dim], dim, k)
		img[major[j]] -= 1
		out.CornerDist[j] = math.Sqrt(sqDist(img, make([]float64, k)))
		sum += out.CornerDist[j]
		m++
	}
	out.MeanCornerDist = sum / float64(m)
	return out, nil
}

// KMeans clusters the n×dim row-major points x into k clusters (k-means++ seeding from a
// PCG stream of seed, then Lloyd's iterations until no point moves, at most 200): each
// point's cluster and the k×dim row-major centres. An empty cluster is moved to the point
// farthest from its centre. Requires n ≥ k ≥ 1 and len(x) = n·dim (panics otherwise: a
// programmer's error).
func KMeans(x []float64, n, dim, k int, seed uint64) ([]int, []float64) {
	if k < 1 || n < k || len(x) != n*dim {
		panic(fmt.Sprintf("diagnostics: KMeans n=%d dim=%d k=%d with %d values", n, dim, k, len(x)))
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	row := func(i int) []float64 { return x[i*dim : (i+1)*dim] }
	centres := make([]float64, k*dim)
	copy(centres, row(rng.IntN(n)))
	d2 := make([]float64, n)
	for j := 1; j < k; j++ {
		total := 0.0
		for i := range n {
			d2[i] = math.Inf(1)
			for c := range j {
				d2[i] = math.Min(d2[i], sqDist(row(i), centres[c*dim:(c+1)*dim]))
			}
			total += d2[i]
		}
		pick, u := n-1, rng.Float64()*total
		for i := range n {
			if u -= d2[i]; u < 0 {
				pick = i
				break
			}
		}
		copy(centres[j*dim:(j+1)*dim], row(pick))
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	count := make([]int, k)
	for iter := 0; iter < 200; iter++ {
		moved := false
		for i := range n {
			best, bd := 0, math.Inf(1)
			for c := range k {
				if d := sqDist(row(i), centres[c*dim:(c+1)*dim]); d < bd {
					best, bd = c, d
				}
			}
			if labels[i] != best {
				labels[i], moved = best, true
			}
		}
		if !moved {
			break
		}
		clear(centres)
		clear(count)
		for i, c := range labels {
			count[c]++
			for q, v := range row(i) {
				centres[c*dim+q] += v
			}
		}
		for c := range k {
			if count[c] == 0 { // re-seed at the point farthest from its own centre
				far, fd := 0, -1.0
				for i, l := range labels {
					if d := sqDist(row(i), centres[l*dim:(l+1)*dim]); d > fd && count[l] > 1 {
						far, fd = i, d
					}
				}
				copy(centres[c*dim:(c+1)*dim], row(far))
				continue
			}
			for q := range dim {
				centres[c*dim+q] /= float64(count[c])
			}
		}
	}
	return labels, centres
}

// Purity is the fraction of points whose cluster's majority label (of truth, values in
// 0..k−1) is their own; NaN for no points or mismatched lengths.
func Purity(labels, truth []int, k int) float64 {
	if len(labels) == 0 || len(labels) != len(truth) {
		return math.NaN()
	}
	major := majority(labels, truth, k)
	hit := 0
	for i, c := range labels {
		if c >= 0 && c < len(major) && major[c] == truth[i] {
			hit++
		}
	}
	return float64(hit) / float64(len(labels))
}

// majority is each cluster's most frequent truth label (the smallest on ties; −1 when empty).
func majority(labels, truth []int, k int) []int {
	nc := k
	for _, c := range labels {
		nc = max(nc, c+1)
	}
	counts := make([][]int, nc)
	for c := range counts {
		counts[c] = make([]int, k)
	}
	for i, c := range labels {
		if c >= 0 && truth[i] >= 0 && truth[i] < k {
			counts[c][truth[i]]++
		}
	}
	out := make([]int, nc)
	for c, cs := range counts {
		out[c] = -1
		best := 0
		for s, v := range cs {
			if v > best {
				out[c], best = s, v
			}
		}
	}
	return out
}

// LinearR2 fits the least-squares affine map from the n×dim row-major x to the n×k
// row-major y (minimum-norm through a pseudo-inverse: collinear states are allowed) and
// returns its R², 1 − Σ residual² / Σ (y − column mean)², pooled over the k columns, and its
// (dim+1)×k coefficients (the last row the intercept). NaN R² when y is constant.
func LinearR2(x []float64, n, dim int, y []float64, k int) (float64, []float64, error) {
	if len(x) != n*dim || len(y) != n*k || n < 1 {
		return 0, nil, fmt.Errorf("linear map: x has %d values (want %d), y %d (want %d)", len(x), n*dim, len(y), n*k)
	}
	a := mat.NewDense(n, dim+1, nil)
	for i := range n {
		for q := range dim {
			a.Set(i, q, x[i*dim+q])
		}
		a.Set(i, dim, 1)
	}
	b := mat.NewDense(n, k, append([]float64(nil), y...))
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return 0, nil, fmt.Errorf("linear map: SVD failed (n=%d dim=%d)", n, dim)
	}
	sv := svd.Values(nil)
	rank := 0
	for _, s := range sv {
		if s > 1e-10*sv[0] {
			rank++
		}
	}
	if rank == 0 {
		return 0, nil, fmt.Errorf("linear map: the states are all zero")
	}
	var coef mat.Dense
	svd.SolveTo(&coef, b, rank)
	var res, tot float64
	cf := coef.RawMatrix()
	c := make([]float64, (dim+1)*k)
	for q := 0; q <= dim; q++ {
		copy(c[q*k:(q+1)*k], cf.Data[q*cf.Stride:q*cf.Stride+k])
	}
	for s := range k {
		mean := 0.0
		for i := range n {
			mean += y[i*k+s]
		}
		mean /= float64(n)
		for i := range n {
			pred := c[dim*k+s]
			for q := range dim {
				pred += x[i*dim+q] * c[q*k+s]
			}
			res += (y[i*k+s] - pred) * (y[i*k+s] - pred)
			tot += (y[i*k+s] - mean) * (y[i*k+s] - mean)
		}
	}
	if tot == 0 {
		return math.NaN(), c, nil
	}
	return 1 - res/tot, c, nil
}

// affine is the image of the point p (dim values) under the (dim+1)×k coefficients c.
func affine(c, p []float64, dim, k int) []float64 {
	out := append([]float64(nil), c[dim*k:(dim+1)*k]...)
	for q, v := range p {
		for s := range k {
			out[s] += v * c[q*k+s]
		}
	}
	return out
}

func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

func sqDist(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}
