package timescales

import (
	"math"
	"testing"
)

// TestTransition: the authors' matrix at n = 8, self 0.3, against its definition written
// out: with S = 0.3 + Σ_{d over the 7 others} 1/d = 0.3 + 2(1 + 1/2 + 1/3) + 1/4, the
// diagonal is 0.3 + 0.7·0.3/S and the entry at circular distance d is 0.7/(d·S); rows sum
// to 1. The conditional entropy is the row entropy (all rows are rotations of one).
func TestTransition(t *testing.T) {
	p := Transition(Symbols, SelfProb)
	s := 0.3 + 2*(1+0.5+1.0/3) + 0.25
	diag := 0.3 + 0.7*0.3/s
	if math.Abs(diag-0.34980) > 1e-5 {
		t.Fatalf("the definition's diagonal is %v, want 0.3498 (arithmetic of the test)", diag)
	}
	h := 0.0
	for i := range Symbols {
		sum := 0.0
		for j := range Symbols {
			d := min((i-j+Symbols)%Symbols, (j-i+Symbols)%Symbols)
			want := diag
			if d > 0 {
				want = 0.7 / (float64(d) * s)
			}
			got := p[i*Symbols+j]
			if math.Abs(got-want) > 1e-15 {
				t.Errorf("P[%d][%d] = %.17g, want %.17g", i, j, got, want)
			}
			sum += got
			if i == 0 {
				h -= want * math.Log(want)
			}
		}
		if math.Abs(sum-1) > 1e-15 {
			t.Errorf("row %d sums to %.17g", i, sum)
		}
	}
	if got := ConditionalEntropy(p, Symbols); math.Abs(got-h) > 1e-14 {
		t.Errorf("H_min %.15g, want %.15g", got, h)
	}
}

// TestDraw: over a long chain the empirical transition frequencies are within 0.01 of P,
// the symbols are near uniform (the stationary law), each input minus its symbol's mean
// has mean ≈ 0 and variance ≈ 1 per coordinate, the means are the same for every seed
// and two seeds give different sequences.
func TestDraw(t *testing.T) {
	p, mu := Transition(Symbols, SelfProb), Means()
	const length = 200_001
	d, err := Draw(7, length, p, mu)
	if err != nil {
		t.Fatal(err)
	}
	if d.N != length-1 || len(d.X) != d.N*Dim || len(d.Y) != d.N {
		t.Fatalf("N %d, %d inputs, %d targets", d.N, len(d.X), len(d.Y))
	}
	var counts [Symbols][Symbols]float64
	var visits [Symbols]float64
	for t := 1; t < d.N; t++ {
		counts[d.Y[t-1]][d.Y[t]]++
		visits[d.Y[t-1]]++
	}
	for i := range Symbols {
		if f := visits[i] / float64(d.N-1); math.Abs(f-1.0/Symbols) > 0.01 {
			t.Errorf("symbol %d visited %.4f of the time, want 1/8", i, f)
		}
		for j := range Symbols {
			if f := counts[i][j] / visits[i]; math.Abs(f-p[i*Symbols+j]) > 0.01 {
				t.Errorf("transition %d→%d at %.4f, P %.4f", i, j, f, p[i*Symbols+j])
			}
		}
	}
	// x_t belongs to y_{t−1}: x_t − μ_{y_{t−1}} is standard normal.
	sum, sq := 0.0, 0.0
	for t := 1; t < d.N; t++ {
		for j := range Dim {
			e := d.X[t*Dim+j] - mu[d.Y[t-1]*Dim+j]
			sum += e
			sq += e * e
		}
	}
	cnt := float64((d.N - 1) * Dim)
	if m, v := sum/cnt, sq/cnt-(sum/cnt)*(sum/cnt); math.Abs(m) > 0.01 || math.Abs(v-1) > 0.01 {
		t.Errorf("noise mean %.4f variance %.4f, want 0 and 1", m, v)
	}
	again := Means()
	for i := range mu {
		if mu[i] != again[i] {
			t.Fatal("the means differ between calls")
		}
	}
	e, err := Draw(8, 100, p, mu)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for i := range e.Y {
		if e.Y[i] == d.Y[i] {
			same++
		}
	}
	if same == len(e.Y) {
		t.Error("seeds 7 and 8 drew the same sequence")
	}
	if _, err := Draw(1, 1, p, mu); err == nil {
		t.Error("length 1: no error")
	}
}
