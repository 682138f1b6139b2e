package diagnostics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// linePoints returns n points c + s_i·v in len(v) dimensions with s_i = i − n/2 and entropy 2 s_i + 1.
func linePoints(n int, c, v []float64) (x, entropy []float64) {
	for i := range n {
		s := float64(i) - float64(n)/2
		for d := range v {
			x = append(x, c[d]+s*v[d])
		}
		entropy = append(entropy, 2*s+1)
	}
	return x, entropy
}

func TestValueManifoldLine(t *testing.T) {
	tests := []struct {
		name string
		c, v []float64
		sign float64 // sign of PC1·entropy after the largest-|loading|-positive convention
	}{
		{"positive loading", []float64{1, 2, 3}, []float64{0.5, 3, -1}, 1},
		{"negative loading", []float64{-4, 0, 7}, []float64{1, -3, 2}, -1},
		{"many dims", []float64{0, 0, 0, 0, 0, 0}, []float64{0.1, 0.2, -0.3, 0.4, -0.5, 0.6}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const n = 10
			x, h := linePoints(n, tc.c, tc.v)
			m, err := ValueManifold(x, n, len(tc.v), h, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Share) != 3 {
				t.Fatalf("len(Share) = %d, want 3", len(m.Share))
			}
			checkScalar(t, "Share[0]", m.Share[0], 1, 1e-9)
			checkScalar(t, "Pearson", m.Pearson, tc.sign, 1e-12)
			checkScalar(t, "Spearman", m.Spearman, tc.sign, 1e-12)
			if len(m.Points) != n || len(m.Entropy) != n {
				t.Fatalf("got %d points, %d entropies; want %d", len(m.Points), len(m.Entropy), n)
			}
			// PC1 coordinate = sign·|v|·(s − mean s); s − mean s = i − (n−1)/2.
			norm := math.Sqrt(stat.Mean(sq(tc.v), nil) * float64(len(tc.v)))
			for i, pt := range m.Points {
				if len(pt) != 3 {
					t.Fatalf("point %d has %d coordinates, want 3", i, len(pt))
				}
				want := tc.sign * norm * (float64(i) - float64(n-1)/2)
				checkScalar(t, fmt.Sprintf("Points[%d][0]", i), pt[0], want, 1e-9)
				checkScalar(t, fmt.Sprintf("Points[%d][1]", i), pt[1], 0, 1e-9)
			}
			checkCurve(t, "Entropy", m.Entropy, h, 0)
		})
	}
}

func sq(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * x
	}
	return out
}

func TestValueManifoldShares(t *testing.T) {
	// Corners of a 4×2 rectangle in the z=5 plane: variances 16/3 (x), 4/3 (y), 0 (z).
	x := []float64{
		-2, -1, 5,
		2, -1, 5,
		-2, 1, 5,
		2, 1, 5,
	}
	h := []float64{0.5, 1, 0.5, 1} // follows x: PC1 is ±x
	m, err := ValueManifold(x, 4, 3, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkCurve(t, "Share", m.Share, []float64{0.8, 0.2, 0}, 1e-12)
	checkScalar(t, "Pearson", m.Pearson, 1, 1e-12) // PC1 = +x by the sign convention
	checkScalar(t, "Spearman", m.Spearman, 1, 1e-12)
	checkCurve(t, "Points[1]", m.Points[1][:2], []float64{2, -1}, 1e-12) // PC2 = +y

	// dim 2: two components only.
	x2 := []float64{-2, -1, 2, -1, -2, 1, 2, 1}
	m2, err := ValueManifold(x2, 4, 2, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkCurve(t, "Share (dim 2)", m2.Share, []float64{0.8, 0.2}, 1e-12)
	if len(m2.Points[0]) != 2 {
		t.Errorf("dim 2: point has %d coordinates, want 2", len(m2.Points[0]))
	}

	// Constant entropy: correlations are NaN but the PCA still comes back.
	m3, err := ValueManifold(x, 4, 3, []float64{1, 1, 1, 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(m3.Pearson) || !math.IsNaN(m3.Spearman) {
		t.Errorf("constant entropy: Pearson %v, Spearman %v; want NaN, NaN", m3.Pearson, m3.Spearman)
	}
	checkScalar(t, "Share[0] (constant entropy)", m3.Share[0], 0.8, 1e-12)
}

func TestValueManifoldSubsample(t *testing.T) {
	const n = 10
	x, h := linePoints(n, []float64{0, 0, 0}, []float64{1, 0.5, 0.25})
	full, err := ValueManifold(x, n, 3, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		maxPoints int
		idx       []int
	}{
		{4, []int{0, 3, 6, 9}},
		{2, []int{0, 9}},
		{1, []int{0}},
		{10, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{50, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{-1, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("max=%d", tc.maxPoints), func(t *testing.T) {
			m, err := ValueManifold(x, n, 3, h, tc.maxPoints)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Points) != len(tc.idx) || len(m.Entropy) != len(tc.idx) {
				t.Fatalf("got %d points, %d entropies; want %d", len(m.Points), len(m.Entropy), len(tc.idx))
			}
			for a, i := range tc.idx {
				checkCurve(t, fmt.Sprintf("Points[%d]", a), m.Points[a], full.Points[i], 1e-12)
				checkScalar(t, fmt.Sprintf("Entropy[%d]", a), m.Entropy[a], h[i], 0)
			}
			// Correlations always use every point.
			checkScalar(t, "Pearson", m.Pearson, full.Pearson, 0)
			checkScalar(t, "Spearman", m.Spearman, full.Spearman, 0)
		})
	}
}

func TestValueManifoldErrors(t *testing.T) {
	x, h := linePoints(5, []float64{0, 0}, []float64{1, 2})
	nanX := append([]float64(nil), x...)
	nanX[3] = math.NaN()
	tests := []struct {
		name    string
		x       []float64
		n, dim  int
		entropy []float64
		want    string
	}{
		{"n=2", x[:4], 2, 2, h[:2], "need n ≥ 3 and dim > 0 (n=2 dim=2)"},
		{"dim 0", x, 5, 0, h, "need n ≥ 3 and dim > 0"},
		{"short x", x[:9], 5, 2, h, "x has 9 values, want 10 (n=5 dim=2)"},
		{"short entropy", x, 5, 2, h[:4], "entropy has 4 values, want 5"},
		{"constant", []float64{3, 1, 3, 1, 3, 1}, 3, 2, h[:3], "all 3 points are identical"},
		{"constant inexact mean", []float64{0.1, 0.7, 0.1, 0.7, 0.1, 0.7, 0.1, 0.7}, 4, 2, h[:4], "all 4 points are identical"},
		{"NaN", nanX, 5, 2, h, "x[3] = NaN is not finite"},
		{"Inf", []float64{1, 2, 3, math.Inf(-1), 5, 6}, 3, 2, h[:3], "x[3] = -Inf is not finite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ValueManifold(tc.x, tc.n, tc.dim, tc.entropy, 0)
			checkErr(t, err, "value manifold: "+strings.TrimPrefix(tc.want, "value manifold: "))
		})
	}
}

func TestPearsonSpearman(t *testing.T) {
	a := make([]float64, 10)
	expA := make([]float64, 10)
	for i := range a {
		a[i] = float64(i + 1)
		expA[i] = math.Exp(a[i])
	}
	tests := []struct {
		name              string
		a, b              []float64
		pearson, spearman float64 // NaN: expect NaN; Inf: only check Pearson < 1 and > 0
	}{
		{"identical", a, a, 1, 1},
		{"linear negative", []float64{1, 2, 3}, []float64{5, 3, 1}, -1, -1},
		{"monotone nonlinear", a, expA, math.Inf(1), 1},
		// Ranks a: 1, 2.5, 2.5, 4; b: 1..4 → 4.5/√(4.5·5) = 3/√10.
		{"ties", []float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, 3 / math.Sqrt(10), 3 / math.Sqrt(10)},
		// All tied on one side: ranks constant → NaN.
		{"constant", []float64{2, 2, 2}, []float64{1, 2, 3}, math.NaN(), math.NaN()},
		// Ranks a: 2,2,2,4.5,4.5 b: 1..5: Spearman = Pearson of those ranks.
		{"tie groups", []float64{0, 0, 0, 1, 1}, []float64{1, 2, 3, 4, 5}, math.Sqrt(0.75), math.Sqrt(0.75)},
		{"one value", []float64{1}, []float64{2}, math.NaN(), math.NaN()},
		{"mismatched", []float64{1, 2}, []float64{1, 2, 3}, math.NaN(), math.NaN()},
		{"NaN", []float64{1, math.NaN(), 3}, []float64{1, 2, 3}, math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, s := Pearson(tc.a, tc.b), Spearman(tc.a, tc.b)
			switch {
			case math.IsNaN(tc.pearson):
				if !math.IsNaN(p) {
					t.Errorf("Pearson = %v, want NaN", p)
				}
			case math.IsInf(tc.pearson, 1):
				if !(p > 0 && p < 1-1e-3) {
					t.Errorf("Pearson = %v, want in (0, 1)", p)
				}
			default:
				checkScalar(t, "Pearson", p, tc.pearson, 1e-12)
			}
			if math.IsNaN(tc.spearman) {
				if !math.IsNaN(s) {
					t.Errorf("Spearman = %v, want NaN", s)
				}
			} else {
				checkScalar(t, "Spearman", s, tc.spearman, 1e-12)
			}
		})
	}

	// Pearson agrees with gonum's stat.Correlation on random data.
	r := rand.New(rand.NewPCG(15, 16))
	for trial := range 50 {
		k := 3 + r.IntN(40)
		x, y := make([]float64, k), make([]float64, k)
		for i := range x {
			x[i] = r.NormFloat64()
			y[i] = x[i]*r.Float64() + r.NormFloat64()
		}
		want := stat.Correlation(x, y, nil)
		if got := Pearson(x, y); !near(got, want, 1e-12) {
			t.Fatalf("trial %d: Pearson = %.17g, stat.Correlation = %.17g", trial, got, want)
		}
	}
}
