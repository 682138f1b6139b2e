package diagnostics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// JLensRank is the rank of the J-lens subspace: the top singular directions of the stacked
// class-logit Jacobians that the authors keep (8).
const JLensRank = 8

// RowBasis returns an orthonormal basis of the span of the top k right singular vectors of
// a (rows×cols, row-major): cols×r row-major, r = min(k, numerical rank). k ≤ 0 keeps the
// whole numerical rank (singular values above cols·ε·σ₁). It is the span of a's rows, or its
// dominant part.
func RowBasis(a []float64, rows, cols, k int) ([]float64, int, error) {
	if rows < 1 || cols < 1 || len(a) != rows*cols {
		return nil, 0, fmt.Errorf("diagnostics: row basis of %d values as %d×%d", len(a), rows, cols)
	}
	for _, x := range a {
		if !finite(x) {
			return nil, 0, fmt.Errorf("diagnostics: row basis: non-finite entry")
		}
	}
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(rows, cols, append([]float64(nil), a...)), mat.SVDThinV) {
		return nil, 0, fmt.Errorf("diagnostics: row basis: SVD did not converge")
	}
	s := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	r := 0
	for _, x := range s {
		if len(s) > 0 && x > float64(max(rows, cols))*1e-12*s[0] {
			r++
		}
	}
	if k > 0 {
		r = min(r, k)
	}
	out := make([]float64, cols*r)
	for i := 0; i < cols; i++ {
		for j := 0; j < r; j++ {
			out[i*r+j] = v.At(i, j)
		}
	}
	return out, r, nil
}

// GramBasis returns an orthonormal basis of the span of the top k eigenvectors of the
// symmetric d×d matrix g (row-major; a Gram of stacked rows, whose top eigenspace is their
// top right singular subspace): d×r row-major, r = min(k, the numerical rank), leading first,
// with every eigenvalue, largest first. Where eigenvalue k equals eigenvalue k+1 the subspace
// is not unique; Gap measures how far it is from that.
func GramBasis(g []float64, d, k int) (basis []float64, r int, eig []float64, err error) {
	if d < 1 || len(g) != d*d {
		return nil, 0, nil, fmt.Errorf("diagnostics: Gram basis of %d values as %d×%d", len(g), d, d)
	}
	for _, x := range g {
		if !finite(x) {
			return nil, 0, nil, fmt.Errorf("diagnostics: Gram basis: non-finite entry")
		}
	}
	sym := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.SetSym(i, j, (g[i*d+j]+g[j*d+i])/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(sym, true) {
		return nil, 0, nil, fmt.Errorf("diagnostics: Gram basis: eigendecomposition did not converge")
	}
	vals := es.Values(nil) // ascending
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	eig = make([]float64, d)
	for i := range eig {
		eig[i] = vals[d-1-i]
	}
	for _, x := range eig {
		if x > float64(d)*1e-12*eig[0] && eig[0] > 0 {
			r++
		}
	}
	if k > 0 {
		r = min(r, k)
	}
	basis = make([]float64, d*r)
	for i := 0; i < d; i++ {
		for j := 0; j < r; j++ {
			basis[i*r+j] = vecs.At(i, d-1-j)
		}
	}
	return basis, r, eig, nil
}

// Gap is the relative gap after the k-th of eigenvalues sorted largest first,
// (λ_k − λ_{k+1}) / λ_k: near 0 the top-k subspace is ill-defined (a small change of the
// matrix turns it), 1 when nothing follows. NaN without k values.
func Gap(eig []float64, k int) float64 {
	if k < 1 || k > len(eig) || !(eig[k-1] > 0) {
		return math.NaN()
	}
	if k == len(eig) {
		return 1
	}
	return (eig[k-1] - eig[k]) / eig[k-1]
}

// SubspaceOverlap is ‖UᵀW‖²_F / min(ru, rw) for orthonormal bases U (d×ru) and W (d×rw),
// row-major: 1 when the smaller subspace lies in the larger, 0 when they are orthogonal. It
// is the authors' overlap of the embedding frame and the J-lens subspace. NaN for bases that
// do not fit d or are empty.
func SubspaceOverlap(u []float64, ru int, w []float64, rw int, d int) float64 {
	if ru < 1 || rw < 1 || d < 1 || len(u) != d*ru || len(w) != d*rw {
		return math.NaN()
	}
	var sum float64
	for a := 0; a < ru; a++ {
		for b := 0; b < rw; b++ {
			var dot float64
			for i := 0; i < d; i++ {
				dot += u[i*ru+a] * w[i*rw+b]
			}
			sum += dot * dot
		}
	}
	return sum / float64(min(ru, rw))
}

// OverlapNull is the mean SubspaceOverlap of a fixed ru-dimensional subspace of R^d with a
// uniformly random rw-dimensional one: E‖UᵀW‖²_F = ru·rw/d, so max(ru, rw)/d (the authors'
// null, 20/192 ≈ 0.104 for bijection's 20 values at d = 192). NaN for ranks outside 1..d.
func OverlapNull(d, ru, rw int) float64 {
	if d < 1 || ru < 1 || rw < 1 || ru > d || rw > d {
		return math.NaN()
	}
	return float64(max(ru, rw)) / float64(d)
}

// FrameRatioMax is the largest overlap ratio (overlap / OverlapNull) a frame of rank ru and
// a subspace of rank rw can reach in R^d: 1/null, reached when the smaller lies in the
// larger. A threshold at or above it (3× null with d < 3·max(ru, rw)) cannot be passed.
func FrameRatioMax(d, ru, rw int) float64 {
	return 1 / OverlapNull(d, ru, rw)
}
