package models

import (
	"fmt"
	"math"

	"gorgonia.org/tensor"
)

// rmsInv is 1/√(mean(x²) + 1e-5), the models' RMSNorm factor.
func rmsInv(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return 1 / math.Sqrt(s/float64(len(x))+1e-5)
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
