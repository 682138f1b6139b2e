package diagnostics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestQKAlignmentSelf(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const n, tLen, width, heads = 3, 5, 8, 2
	q := make([]float64, n*tLen*width)
	for i := range q {
		q[i] = r.NormFloat64()
	}
	positions := []int{0, 2, 4}
	m, err := QKAlignment(q, q, n, tLen, width, heads, positions)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != len(positions)*tLen {
		t.Fatalf("len = %d, want %d", len(m), len(positions)*tLen)
	}
	for i, p := range positions {
		for j := range tLen {
			v := m[i*tLen+j]
			switch {
			case j > p:
				if !math.IsNaN(v) {
					t.Errorf("map[%d][%d] = %v above the causal limit, want NaN", i, j, v)
				}
			case j == p:
				checkScalar(t, fmt.Sprintf("map[%d][%d] (diagonal)", i, j), v, 1, 1e-12)
			default:
				if math.IsNaN(v) || math.Abs(v) > 1 {
					t.Errorf("map[%d][%d] = %v, want a cosine in [-1, 1]", i, j, v)
				}
			}
		}
	}
}

func TestQKAlignmentKnown(t *testing.T) {
	tests := []struct {
		name                string
		q, k                []float64
		n, tLen, wid, heads int
		positions           []int
		want                []float64
	}{
		{
			// Queries y (token 0) and x (token 1); keys x+y and x.
			name: "one head", n: 1, tLen: 2, wid: 2, heads: 1, positions: []int{1, 0},
			q:    []float64{0, 1, 1, 0},
			k:    []float64{1, 1, 1, 0},
			want: []float64{1 / math.Sqrt2, 1, 1 / math.Sqrt2, math.NaN()},
		},
		{
			// Head 0 aligned (+1), head 1 opposed (−1): mean 0.
			name: "heads average", n: 1, tLen: 1, wid: 4, heads: 2, positions: []int{0},
			q:    []float64{1, 2, 3, 0},
			k:    []float64{2, 4, -1, 0},
			want: []float64{0},
		},
		{
			// Sequence 0 cos 1, sequence 1 cos 0: mean 0.5.
			name: "sequences average", n: 2, tLen: 1, wid: 2, heads: 1, positions: []int{0},
			q:    []float64{1, 0, 1, 0},
			k:    []float64{3, 0, 0, 2},
			want: []float64{0.5},
		},
		{
			// A zero key is left out: sequence 0 has none at j=0, so only sequence 1 counts there.
			name: "zero key skipped", n: 2, tLen: 2, wid: 2, heads: 1, positions: []int{1},
			q:    []float64{0, 0, 1, 0, 0, 0, 1, 0},
			k:    []float64{0, 0, 1, 0, -1, 0, 0, 1},
			want: []float64{-1, 0.5},
		},
		{
			name: "all zero", n: 1, tLen: 1, wid: 2, heads: 1, positions: []int{0},
			q:    []float64{0, 0},
			k:    []float64{1, 0},
			want: []float64{math.NaN()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := QKAlignment(tc.q, tc.k, tc.n, tc.tLen, tc.wid, tc.heads, tc.positions)
			if err != nil {
				t.Fatal(err)
			}
			checkNaNCurve(t, "QKAlignment", got, tc.want, 1e-12)
		})
	}
}

func TestQKAlignmentErrors(t *testing.T) {
	x := make([]float64, 2*3*4)
	tests := []struct {
		name                string
		q, k                []float64
		n, tLen, wid, heads int
		positions           []int
		want                string
	}{
		{"zero n", x, x, 0, 3, 4, 2, []int{0}, "sizes must be positive (n=0 t=3 width=4 heads=2)"},
		{"indivisible", x, x, 2, 3, 4, 3, []int{0}, "width 4 not divisible by heads 3"},
		{"short q", x[:23], x, 2, 3, 4, 2, []int{0}, "q has 23 values, want 24 (n=2 t=3 width=4)"},
		{"long k", x, append(x, 0), 2, 3, 4, 2, []int{0}, "k has 25 values, want 24"},
		{"position too large", x, x, 2, 3, 4, 2, []int{0, 3}, "positions[1] = 3 outside [0, 3)"},
		{"negative position", x, x, 2, 3, 4, 2, []int{-1}, "positions[0] = -1 outside [0, 3)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := QKAlignment(tc.q, tc.k, tc.n, tc.tLen, tc.wid, tc.heads, tc.positions)
			checkErr(t, err, "qk alignment: "+tc.want)
		})
	}
}
