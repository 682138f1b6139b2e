package diagnostics

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randNormal returns k standard normal values.
func randNormal(r *rand.Rand, k int) []float64 {
	x := make([]float64, k)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	return x
}

// randAttention returns n×heads×p×t causal attention rows (scored row r sees keys 0..t−p+r).
func randAttention(r *rand.Rand, n, heads, p, t int) []float64 {
	a := make([]float64, 0, n*heads*p*t)
	row := make([]float64, t)
	for range n * heads {
		for s := range p {
			clear(row)
			valid := t - p + s + 1
			copy(row, randDist(r, valid))
			a = append(a, row...)
		}
	}
	return a
}

func BenchmarkAttentionFocus(b *testing.B) {
	for _, sz := range []struct{ layers, n, heads, p, t int }{
		{2, 256, 4, 20, 20},
		{4, 1024, 8, 20, 40},
	} {
		r := rand.New(rand.NewPCG(21, 22))
		attn := make([][]float64, sz.layers)
		for l := range attn {
			attn[l] = randAttention(r, sz.n, sz.heads, sz.p, sz.t)
		}
		ev := make([]bool, sz.t)
		for i := range ev {
			ev[i] = i%3 == 0
		}
		evidence := func(int, int) []bool { return ev }
		b.Run(fmt.Sprintf("L=%d,n=%d,H=%d,P=%d,T=%d", sz.layers, sz.n, sz.heads, sz.p, sz.t), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := AttentionFocus(attn, sz.n, sz.heads, sz.p, sz.t, evidence); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkKeyOrthogonality(b *testing.B) {
	for _, sz := range []struct{ nrows, width, heads, vocab int }{
		{256 * 20, 64, 4, 40},
		{1024 * 40, 256, 8, 256},
	} {
		r := rand.New(rand.NewPCG(23, 24))
		keys := randNormal(r, sz.nrows*sz.width)
		tokens := make([]int, sz.nrows)
		for i := range tokens {
			tokens[i] = r.IntN(sz.vocab)
		}
		b.Run(fmt.Sprintf("rows=%d,W=%d,H=%d,V=%d", sz.nrows, sz.width, sz.heads, sz.vocab), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := KeyOrthogonality(keys, tokens, sz.nrows, sz.width, sz.heads, nil, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRandomOrthogonality(b *testing.B) {
	for _, sz := range []struct{ n, dim int }{{40, 16}, {256, 64}} {
		b.Run(fmt.Sprintf("n=%d,dim=%d", sz.n, sz.dim), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				RandomOrthogonality(sz.n, sz.dim, 1, 1, false)
			}
		})
	}
}

func BenchmarkQKAlignment(b *testing.B) {
	for _, sz := range []struct{ n, t, width, heads int }{
		{256, 20, 64, 4},
		{1024, 40, 256, 8},
	} {
		r := rand.New(rand.NewPCG(25, 26))
		q := randNormal(r, sz.n*sz.t*sz.width)
		k := randNormal(r, sz.n*sz.t*sz.width)
		positions := make([]int, sz.t)
		for i := range positions {
			positions[i] = i
		}
		b.Run(fmt.Sprintf("n=%d,T=%d,W=%d,H=%d", sz.n, sz.t, sz.width, sz.heads), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := QKAlignment(q, k, sz.n, sz.t, sz.width, sz.heads, positions); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkValueManifold(b *testing.B) {
	for _, sz := range []struct{ n, dim int }{
		{256 * 20, 64},
		{1024 * 20, 256},
	} {
		r := rand.New(rand.NewPCG(27, 28))
		x := randNormal(r, sz.n*sz.dim)
		h := randNormal(r, sz.n)
		b.Run(fmt.Sprintf("n=%d,dim=%d", sz.n, sz.dim), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ValueManifold(x, sz.n, sz.dim, h, 2000); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAttentionDrift(b *testing.B) {
	for _, sz := range []struct{ rows, t int }{
		{256 * 4 * 20, 20},
		{1024 * 8 * 20, 40},
	} {
		r := rand.New(rand.NewPCG(29, 30))
		a := randAttention(r, sz.rows/20, 1, 20, sz.t)
		c := randAttention(r, sz.rows/20, 1, 20, sz.t)
		b.Run(fmt.Sprintf("rows=%d,T=%d", sz.rows, sz.t), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				AttentionDrift(a, c, sz.t)
			}
		})
	}
}
