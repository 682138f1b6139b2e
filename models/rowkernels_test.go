package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExportedRowKernels: SoftmaxRow and SoftmaxBack in float32 (the AVX2 kernels where they
// run) follow the float64 loops within 2e-6 at every length 1..70 (across the kernels'
// 8-lane blocks and their tails), the softmax sums to 1, and slices of different lengths
// are a programmer error (a panic).
func TestExportedRowKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 70; n++ {
		x64, g64 := make([]float64, n), make([]float64, n)
		x32, g32 := make([]float32, n), make([]float32, n)
		for i := range x64 {
			x64[i], g64[i] = 4*rng.NormFloat64(), rng.NormFloat64()
			x32[i], g32[i] = float32(x64[i]), float32(g64[i])
			x64[i], g64[i] = float64(x32[i]), float64(g32[i])
		}
		SoftmaxRow(x64)
		SoftmaxRow(x32)
		sum := 0.0
		for i := range x64 {
			sum += x64[i]
			if d := math.Abs(float64(x32[i]) - x64[i]); d > 2e-6 {
				t.Fatalf("n %d: softmax[%d] float32 %g, float64 %g", n, i, x32[i], x64[i])
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("n %d: softmax sums to %v", n, sum)
		}
		SoftmaxBack(x64, g64)
		SoftmaxBack(x32, g32)
		for i := range g64 {
			if d := math.Abs(float64(g32[i]) - g64[i]); d > 2e-6 {
				t.Fatalf("n %d: softmax gradient[%d] float32 %g, float64 %g", n, i, g32[i], g64[i])
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SoftmaxBack of lengths 3 and 2: no panic")
		}
	}()
	SoftmaxBack(make([]float32, 3), make([]float32, 2))
}
