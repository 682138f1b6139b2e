package diagnostics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func TestEntropy(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 20, 256, 1000} {
		d := make([]float64, n)
		for i := range d {
			d[i] = 1 / float64(n)
		}
		checkScalar(t, fmt.Sprintf("Entropy(uniform %d)", n), Entropy(d), math.Log2(float64(n)), tol)
	}
	tests := []struct {
		name string
		d    []float64
		want float64
	}{
		{"one-hot", []float64{0, 1, 0}, 0},
		{"half with zero", []float64{0.5, 0.5, 0}, 1},
		{"dyadic", []float64{0.5, 0.25, 0.125, 0.125}, 1.75},
		{"quarter", []float64{0.25, 0.75}, 2 - 0.75*math.Log2(3)},
		{"empty", nil, 0},
	}
	for _, tc := range tests {
		checkScalar(t, "Entropy("+tc.name+")", Entropy(tc.d), tc.want, tol)
	}
	if !math.IsNaN(Entropy([]float64{0.5, math.NaN()})) {
		t.Error("Entropy with NaN entry is not NaN")
	}
}

func TestKLAgainstGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 500 {
		c := 2 + r.IntN(60)
		p, q := randDist(r, c), randDist(r, c)
		if trial%5 == 0 { // some zeros in p: those terms contribute 0
			p[r.IntN(c)] = 0
		}
		want := stat.KullbackLeibler(p, q) / math.Ln2
		if got := KL(p, q); !near(got, want, 1e-12) {
			t.Fatalf("trial %d (C=%d): KL = %.17g, gonum/ln2 = %.17g", trial, c, got, want)
		}
		// Score on the same single pair agrees too (no clamping for q ≥ 1e-30).
		s, err := Score(q, p, 1, 1, c)
		if err != nil {
			t.Fatal(err)
		}
		if !near(s.KLBits, want, 1e-12) {
			t.Fatalf("trial %d (C=%d): Score KLBits = %.17g, gonum/ln2 = %.17g", trial, c, s.KLBits, want)
		}
	}
}

func TestKLAndTVDEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		p, q    []float64
		kl, tvd float64
	}{
		{"identical", []float64{0.3, 0.7}, []float64{0.3, 0.7}, 0, 0},
		{"p zero term", []float64{0, 1}, []float64{0.5, 0.5}, 1, 0.5},
		{"q zero where p>0", []float64{0.5, 0.5}, []float64{1, 0}, math.Inf(1), 0.5},
		{"q zero where p=0", []float64{1, 0}, []float64{0.5, 0.5}, 1, 0.5},
		{"disjoint", []float64{1, 0}, []float64{0, 1}, math.Inf(1), 1},
		{"uniform vs one-hot C=4", []float64{0, 0, 0, 1}, []float64{0.25, 0.25, 0.25, 0.25}, 2, 0.75},
		{"empty", nil, nil, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkScalar(t, "KL", KL(tc.p, tc.q), tc.kl, tol)
			checkScalar(t, "TVD", TVD(tc.p, tc.q), tc.tvd, tol)
		})
	}
	if !math.IsNaN(KL([]float64{1}, []float64{0.5, 0.5})) {
		t.Error("KL with mismatched lengths is not NaN")
	}
	if !math.IsNaN(TVD([]float64{1}, []float64{0.5, 0.5})) {
		t.Error("TVD with mismatched lengths is not NaN")
	}
}

func TestSoftmaxInto(t *testing.T) {
	tests := []struct {
		name   string
		logits []float64
		want   []float64
		eps    float64 // 1e-15, or looser where adding log(k) to a large logit rounds it (ulp(1e4) ≈ 2e-12)
	}{
		{"logs", []float64{0, math.Log(2), math.Log(3)}, []float64{1.0 / 6, 2.0 / 6, 3.0 / 6}, 1e-15},
		{"shifted by 1000", []float64{1000, 1000 + math.Log(2), 1000 + math.Log(3)}, []float64{1.0 / 6, 2.0 / 6, 3.0 / 6}, 1e-12},
		{"large equal", []float64{1e300, 1e300}, []float64{0.5, 0.5}, 1e-15},
		{"very negative", []float64{-1e4, -1e4 - math.Log(3)}, []float64{0.75, 0.25}, 1e-11},
		{"very negative exact", []float64{-1e4, -1e4 - 1}, []float64{1 / (1 + math.Exp(-1)), math.Exp(-1) / (1 + math.Exp(-1))}, 1e-15},
		{"masked -Inf", []float64{0, math.Inf(-1), 0}, []float64{0.5, 0, 0.5}, 1e-15},
		{"single", []float64{-42}, []float64{1}, 1e-15},
		{"empty", nil, []float64{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SoftmaxInto(nil, tc.logits)
			checkCurve(t, "softmax", got, tc.want, tc.eps)
			// Into a larger buffer, and in place.
			buf := make([]float64, len(tc.logits)+3)
			checkCurve(t, "softmax (buffer)", SoftmaxInto(buf, tc.logits), tc.want, tc.eps)
			in := append([]float64(nil), tc.logits...)
			checkCurve(t, "softmax (in place)", SoftmaxInto(in, in), tc.want, tc.eps)
		})
	}
	for _, bad := range [][]float64{
		{math.Inf(-1), math.Inf(-1)},
		{0, math.Inf(1)},
		{0, math.NaN(), 1},
	} {
		for i, v := range SoftmaxInto(nil, bad) {
			if !math.IsNaN(v) {
				t.Errorf("SoftmaxInto(%v)[%d] = %v, want NaN", bad, i, v)
			}
		}
	}
	// Reuses dst without allocating.
	dst := make([]float64, 20)
	logits := make([]float64, 20)
	if a := testing.AllocsPerRun(10, func() { SoftmaxInto(dst, logits) }); a != 0 {
		t.Errorf("SoftmaxInto allocated %v times, want 0", a)
	}
}
