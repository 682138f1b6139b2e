package diagnostics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Standardize returns a copy of the n×dim row-major matrix x with every column scaled to
// zero mean and unit (population) variance, as the authors' StandardScaler does before their
// PCA; a constant column becomes zeros. It returns nil for bad sizes.
func Standardize(x []float64, n, dim int) []float64 {
	if n <= 0 || dim <= 0 || len(x) != n*dim {
		return nil
	}
	out := make([]float64, len(x))
	for j := range dim {
		var mean float64
		for i := range n {
			mean += x[i*dim+j]
		}
		mean /= float64(n)
		var ss float64
		for i := range n {
			d := x[i*dim+j] - mean
			ss += d * d
		}
		sd := math.Sqrt(ss / float64(n))
		if sd == 0 {
			continue
		}
		for i := range n {
			out[i*dim+j] = (x[i*dim+j] - mean) / sd
		}
	}
	return out
}

// PrincipalAxis returns the unit direction of largest variance (PC1) of the rows of the
// n×dim row-major matrix x, centred, and the standard deviation of the rows' coordinates on
// it. Its sign is arbitrary. Fewer than 2 rows, a non-finite value, constant rows or a
// failed factorisation return an error.
func PrincipalAxis(x []float64, n, dim int) ([]float64, float64, error) {
	if n < 2 || dim <= 0 || len(x) != n*dim {
		return nil, 0, fmt.Errorf("diagnostics: principal axis: need n ≥ 2, dim > 0 and n·dim values (n=%d dim=%d len=%d)", n, dim, len(x))
	}
	for i, v := range x {
		if !finite(v) {
			return nil, 0, fmt.Errorf("diagnostics: principal axis: x[%d] = %g is not finite", i, v)
		}
	}
	mean := make([]float64, dim)
	for i := range n {
		floats.Add(mean, x[i*dim:(i+1)*dim])
	}
	floats.Scale(1/float64(n), mean)
	c := mat.NewDense(n, dim, nil)
	for i := range n {
		floats.SubTo(c.RawRowView(i), x[i*dim:(i+1)*dim], mean)
	}
	var svd mat.SVD
	if !svd.Factorize(c, mat.SVDThinV) {
		return nil, 0, fmt.Errorf("diagnostics: principal axis: SVD failed (n=%d dim=%d)", n, dim)
	}
	s := svd.Values(nil)
	if len(s) == 0 || !(s[0] > 0) {
		return nil, 0, fmt.Errorf("diagnostics: principal axis: the %d rows are identical", n)
	}
	var v mat.Dense
	svd.VTo(&v)
	return mat.Col(nil, 0, &v), s[0] / math.Sqrt(float64(n)), nil
}

// Project returns each row of the n×dim matrix x dotted with axis (length dim), or nil for bad sizes.
func Project(x []float64, n, dim int, axis []float64) []float64 {
	if n <= 0 || len(x) != n*dim || len(axis) != dim {
		return nil
	}
	out := make([]float64, n)
	for i := range n {
		out[i] = floats.Dot(x[i*dim:(i+1)*dim], axis)
	}
	return out
}

// Trend is how a per-layer series falls from the first layer to the last.
type Trend struct {
	First float64 `json:"first"`
	Last  float64 `json:"last"`
	// Drop is (First − Last)/First: the share of the first layer's value gone by the last.
	Drop float64 `json:"drop"`
	// Spearman is the rank correlation of the value with the layer index (−1: falling
	// monotonically).
	Spearman float64 `json:"spearman"`
}

// TrendOf returns the Trend of series (one value per layer; NaN fields for fewer than 2).
func TrendOf(series []float64) Trend {
	if len(series) < 2 {
		return Trend{First: math.NaN(), Last: math.NaN(), Drop: math.NaN(), Spearman: math.NaN()}
	}
	idx := make([]float64, len(series))
	for i := range idx {
		idx[i] = float64(i)
	}
	f, l := series[0], series[len(series)-1]
	return Trend{First: f, Last: l, Drop: (f - l) / f, Spearman: Spearman(idx, series)}
}
