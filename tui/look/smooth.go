package look

import (
	"fmt"
	"math"
)

// Smoothings are the weights of the exponential moving average + and − step through on
// the dashboard and in the comparison view, none first: TensorBoard's default 0.6, then
// heavier.
var Smoothings = []float64{0, 0.6, 0.8, 0.9, 0.95, 0.99}

// EMA is ys smoothed by an exponential moving average of weight w in [0, 1), as
// TensorBoard smooths a scalar: s ← w·s + (1−w)·y over the finite values, each divided by
// 1 − w^n (n finite values so far) so that the start is not pulled towards 0; a non-finite
// value stays as it is (a gap) and does not enter the average. w = 0 returns ys.
func EMA(ys []float64, w float64) []float64 {
	if !(w > 0) || w >= 1 {
		return ys
	}
	out := make([]float64, len(ys))
	s, debias := 0.0, 1.0
	for i, y := range ys {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			out[i] = y
			continue
		}
		s = w*s + (1-w)*y
		debias *= w
		out[i] = s / (1 - debias)
	}
	return out
}

// SmoothStep moves the index i into Smoothings by d (+1 heavier, −1 lighter), kept inside.
func SmoothStep(i, d int) int { return min(max(i+d, 0), len(Smoothings)-1) }

// SmoothLabel names the smoothing at index i: "EMA 0.6", or "raw".
func SmoothLabel(i int) string {
	if i <= 0 || i >= len(Smoothings) {
		return "raw"
	}
	return fmt.Sprintf("EMA %g", Smoothings[i])
}
