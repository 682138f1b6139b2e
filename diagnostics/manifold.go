package diagnostics

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Manifold is the principal-component view of residual-stream vectors at scored positions, beside the posterior entropy there.
type Manifold struct {
	// Share holds the explained-variance fractions of PC1..PC3 (fewer when dim < 3).
	Share []float64 `json:"share"`
	// Pearson is the Pearson correlation of the PC1 coordinate with the entropy over all points (NaN when the entropy is constant).
	Pearson float64 `json:"pc1_entropy_pearson"`
	// Spearman is the Spearman rank correlation, average ranks for ties, of the PC1 coordinate with the entropy over all points (NaN when the entropy is constant).
	Spearman float64 `json:"pc1_entropy_spearman"`
	// Points holds each (possibly subsampled) point's coordinates on PC1..PC3, len(Share) values per point.
	Points [][]float64 `json:"points"`
	// Entropy holds the entropy of each point in Points.
	Entropy []float64 `json:"entropy"`
}

// ValueManifold runs a PCA of the n×dim row-major matrix x and correlates the PC1 coordinate with entropy (length n).
//
// The PCA is a thin SVD (gonum mat.SVD, V only) of the column-centred x, the
// same factorisation stat.PCA uses.
//
// Each principal direction is signed so that its largest-|loading| component
// (the first such on ties) is positive; the correlation signs are reported as
// they come out of that convention. The correlations use all n points; Points
// and Entropy are subsampled to at most maxPoints evenly spaced points (first
// and last included) when maxPoints > 0 and n > maxPoints. Pearson and Spearman
// are NaN when the entropy is constant. n < 3, non-positive dim, wrong
// lengths, a NaN or ±Inf in x, constant x or a failed factorisation return
// an error.
func ValueManifold(x []float64, n, dim int, entropy []float64, maxPoints int) (Manifold, error) {
	if n < 3 || dim <= 0 {
		return Manifold{}, fmt.Errorf("diagnostics: value manifold: need n ≥ 3 and dim > 0 (n=%d dim=%d)", n, dim)
	}
	want, err := product(n, dim)
	if err != nil {
		return Manifold{}, fmt.Errorf("diagnostics: value manifold: %w", err)
	}
	if len(x) != want {
		return Manifold{}, fmt.Errorf("diagnostics: value manifold: x has %d values, want %d (n=%d dim=%d)",
			len(x), want, n, dim)
	}
	if len(entropy) != n {
		return Manifold{}, fmt.Errorf("diagnostics: value manifold: entropy has %d values, want %d", len(entropy), n)
	}
	for i, v := range x {
		if !finite(v) {
			return Manifold{}, fmt.Errorf("diagnostics: value manifold: x[%d] = %g is not finite", i, v)
		}
	}
	if slices.Equal(x[:(n-1)*dim], x[dim:]) { // every row equals the next: no variance at all
		return Manifold{}, fmt.Errorf("diagnostics: value manifold: all %d points are identical (constant input)", n)
	}
	// Centre the columns, then factorise; only V is needed, which keeps the
	// cost at O(n·dim²) without forming the n×min(n,dim) U.
	centred := centreColumns(x, n, dim)
	var svd mat.SVD
	if !svd.Factorize(centred, mat.SVDThinV) {
		return Manifold{}, fmt.Errorf("diagnostics: value manifold: SVD factorisation failed (n=%d dim=%d)", n, dim)
	}
	vars := svd.Values(nil) // singular values, descending; variance ∝ σ²
	var total float64
	for c, v := range vars {
		vars[c] = v * v
		total += vars[c]
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return Manifold{}, fmt.Errorf("diagnostics: value manifold: total variance %g, need a finite positive value (constant input?)", total)
	}
	k := min(3, len(vars))
	var vecs mat.Dense
	svd.VTo(&vecs)
	dirs := mat.DenseCopyOf(vecs.Slice(0, dim, 0, k))
	for c := range k {
		best, at := -1.0, 0
		for i := range dim {
			if a := math.Abs(dirs.At(i, c)); a > best {
				best, at = a, i
			}
		}
		if dirs.At(at, c) < 0 {
			for i := range dim {
				dirs.Set(i, c, -dirs.At(i, c))
			}
		}
	}

	// Scores of the centred points on the k directions.
	var scores mat.Dense
	scores.Mul(centred, dirs)
	pc1 := mat.Col(nil, 0, &scores)

	out := Manifold{
		Share:    make([]float64, k),
		Pearson:  Pearson(pc1, entropy),
		Spearman: Spearman(pc1, entropy),
	}
	for c := range k {
		out.Share[c] = vars[c] / total
	}
	keep := n
	if maxPoints > 0 && n > maxPoints {
		keep = maxPoints
	}
	back := make([]float64, keep*k)
	out.Points = make([][]float64, keep)
	out.Entropy = make([]float64, keep)
	for a := range keep {
		i := a
		if keep < n {
			i = 0
			if keep > 1 {
				i = a * (n - 1) / (keep - 1)
			}
		}
		pt := back[a*k : (a+1)*k : (a+1)*k]
		copy(pt, scores.RawRowView(i))
		out.Points[a] = pt
		out.Entropy[a] = entropy[i]
	}
	return out, nil
}

// centreColumns returns the n×dim row-major matrix x with each column's mean subtracted.
func centreColumns(x []float64, n, dim int) *mat.Dense {
	mean := make([]float64, dim)
	for i := range n {
		floats.Add(mean, x[i*dim:(i+1)*dim])
	}
	floats.Scale(1/float64(n), mean)
	c := mat.NewDense(n, dim, nil)
	for i := range n {
		floats.SubTo(c.RawRowView(i), x[i*dim:(i+1)*dim], mean)
	}
	return c
}

// SequenceManifold is ValueManifold over one sequence's scored positions (the sampling of the
// authors' figures): x is the (seqs·p)×dim row-major matrix of seqs sequences of p scored
// positions each, sequence-major, and entropy its seqs·p entropies; sequence seq's p rows
// are taken and every point is kept. Within one sequence the PC1 share is larger than across
// many (docs/usage.md: Geometry), |ρ(PC1, entropy)| comparable. Bad sizes or seq out of range return an
// error, as do the failures of ValueManifold (p < 3 among them).
func SequenceManifold(x []float64, seqs, p, dim int, entropy []float64, seq int) (Manifold, error) {
	if seqs <= 0 || p <= 0 || dim <= 0 {
		return Manifold{}, fmt.Errorf("diagnostics: sequence manifold: sizes must be positive (seqs=%d p=%d dim=%d)", seqs, p, dim)
	}
	if seq < 0 || seq >= seqs {
		return Manifold{}, fmt.Errorf("diagnostics: sequence manifold: sequence %d outside [0, %d)", seq, seqs)
	}
	rows, err := product(seqs, p)
	if err != nil {
		return Manifold{}, fmt.Errorf("diagnostics: sequence manifold: %w", err)
	}
	want, err := product(rows, dim)
	if err != nil {
		return Manifold{}, fmt.Errorf("diagnostics: sequence manifold: %w", err)
	}
	if len(x) != want || len(entropy) != rows {
		return Manifold{}, fmt.Errorf("diagnostics: sequence manifold: x has %d values and entropy %d, want %d and %d (seqs=%d p=%d dim=%d)",
			len(x), len(entropy), want, rows, seqs, p, dim)
	}
	return ValueManifold(x[seq*p*dim:(seq+1)*p*dim], p, dim, entropy[seq*p:(seq+1)*p], 0)
}

// Pearson returns the Pearson correlation of a and b, or NaN when the lengths differ, there are fewer than 2 values, or either side is constant.
func Pearson(a, b []float64) float64 {
	if len(a) != len(b) || len(a) < 2 {
		return math.NaN()
	}
	ma, mb := stat.Mean(a, nil), stat.Mean(b, nil)
	var sab, saa, sbb float64
	for i, x := range a {
		da, db := x-ma, b[i]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return math.NaN()
	}
	r := sab / (math.Sqrt(saa) * math.Sqrt(sbb))
	return max(-1, min(1, r)) // NaN passes through unchanged
}

// Spearman returns the Spearman rank correlation of a and b (Pearson of ranks, tied values sharing their average rank), or NaN as Pearson does or when any value is NaN.
func Spearman(a, b []float64) float64 {
	if len(a) != len(b) || len(a) < 2 {
		return math.NaN()
	}
	ra, rb := ranks(a), ranks(b)
	if ra == nil || rb == nil {
		return math.NaN()
	}
	return Pearson(ra, rb)
}

// ranks returns the 1-based ranks of xs with ties averaged, or nil if any value is NaN.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i, x := range xs {
		if x != x {
			return nil
		}
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return cmp.Compare(xs[i], xs[j]) })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // mean of ranks i+1..j
		for _, id := range idx[i:j] {
			r[id] = avg
		}
		i = j
	}
	return r
}
