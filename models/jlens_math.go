package models

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gorgonia.org/tensor"
)

// The float64 row arithmetic of ClassJacobians.

// rmsInv is 1/√(mean(x²) + 1e-5), the models' RMSNorm factor.
func rmsInv(x []float64) float64 {
	return 1 / math.Sqrt(dot64(x, x)/float64(len(x))+1e-5)
}

// rmsBack maps adjoints dy (rows of len(x)) of y = x·r·g, r = rmsInv(x), to those of x.
func rmsBack(x []float64, r float64, g, dy []float64, rows int) []float64 {
	d := len(x)
	dx := make([]float64, rows*d)
	for row := 0; row < rows; row++ {
		dyr, dxr := dy[row*d:(row+1)*d], dx[row*d:(row+1)*d]
		var s float64
		for k := range x {
			s += x[k] * g[k] * dyr[k]
		}
		c := r * r * r * s / float64(d)
		for k := range x {
			dxr[k] = r*g[k]*dyr[k] - x[k]*c
		}
	}
	return dx
}

// vecMat is x·W for W n×m row-major.
func vecMat(x, w []float64, n, m int) []float64 {
	y := make([]float64, m)
	blas64.Gemv(blas.Trans, 1, blas64.General{Rows: n, Cols: m, Stride: m, Data: w},
		blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: m, Inc: 1, Data: y})
	return y
}

// matMulT is alpha·g·Wᵀ for g rows×m and W n×m row-major (rows×n).
func matMulT(g, w []float64, rows, m, n int, alpha float64) []float64 {
	y := make([]float64, rows*n)
	blas64.Gemm(blas.NoTrans, blas.Trans, alpha, blas64.General{Rows: rows, Cols: m, Stride: m, Data: g},
		blas64.General{Rows: n, Cols: m, Stride: m, Data: w}, 0, blas64.General{Rows: rows, Cols: n, Stride: n, Data: y})
	return y
}

// addMatMulT adds g·Wᵀ to y (see matMulT).
func addMatMulT(y, g, w []float64, rows, m, n int) {
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, blas64.General{Rows: rows, Cols: m, Stride: m, Data: g},
		blas64.General{Rows: n, Cols: m, Stride: m, Data: w}, 1, blas64.General{Rows: rows, Cols: n, Stride: n, Data: y})
}

func softmax64(x []float64) {
	mx := x[0]
	for _, v := range x[1:] {
		mx = max(mx, v)
	}
	var s float64
	for k, v := range x {
		x[k] = math.Exp(v - mx)
		s += x[k]
	}
	for k := range x {
		x[k] /= s
	}
}

func dot64(a, b []float64) float64 {
	var s float64
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

// floats copies a float32 or float64 tensor's data into float64.
func floats(t *tensor.Dense) []float64 {
	switch d := t.Data().(type) {
	case []float64:
		return append([]float64(nil), d...)
	case []float32:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = float64(v)
		}
		return out
	}
	panic(fmt.Sprintf("models: tensor of %T", t.Data()))
}
