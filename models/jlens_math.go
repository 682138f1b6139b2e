package models

import (
	"fmt"

	"gorgonia.org/tensor"
)

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
