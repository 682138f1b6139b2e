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
	mean, sd := ColumnStats(x, n, dim)
	if mean == nil {
		return nil
	}
	out := make([]float64, len(x))
	for i := range n {
		StandardizeRow(out[i*dim:(i+1)*dim], x[i*dim:(i+1)*dim], mean, sd)
	}
	return out
}

// ColumnStats returns the mean and population standard deviation of each column of the
// n×dim row-major matrix x, or nils for bad sizes.
func ColumnStats(x []float64, n, dim int) (mean, sd []float64) {
	if n <= 0 || dim <= 0 || len(x) != n*dim {
		return nil, nil
	}
	mean, sd = make([]float64, dim), make([]float64, dim)
	for j := range dim {
		for i := range n {
			mean[j] += x[i*dim+j]
		}
		mean[j] /= float64(n)
		var ss float64
		for i := range n {
			d := x[i*dim+j] - mean[j]
			ss += d * d
		}
		sd[j] = math.Sqrt(ss / float64(n))
	}
	return mean, sd
}

// StandardizeRow sets dst to row scaled by ColumnStats' mean and sd (0 where sd is 0), so a
// new point lands in the coordinates Standardize gave the rows the statistics came from.
func StandardizeRow(dst, row, mean, sd []float64) {
	for j, v := range row {
		if sd[j] == 0 {
			dst[j] = 0
			continue
		}
		dst[j] = (v - mean[j]) / sd[j]
	}
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
	c := centreColumns(x, n, dim)
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
