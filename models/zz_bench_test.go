package models

import "testing"

func BenchmarkExpRow(b *testing.B) {
	a := make([]float32, 16)
	d := make([]float32, 16)
	for i := range a {
		a[i] = -float32(i + 1)
	}
	for i := 0; i < b.N; i++ {
		expRow(d, a, 0.01*float32(i%100))
	}
}

func BenchmarkExpf16(b *testing.B) {
	a := make([]float32, 16)
	d := make([]float32, 16)
	for i := range a {
		a[i] = -float32(i + 1)
	}
	for i := 0; i < b.N; i++ {
		x := 0.01 * float32(i%100)
		for j, v := range a {
			d[j] = expf(x * v)
		}
	}
}
