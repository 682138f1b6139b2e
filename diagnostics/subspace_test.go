package diagnostics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomBasis is an orthonormal basis (d×r, row-major) of the span of r Gaussian vectors.
func randomBasis(t *testing.T, rng *rand.Rand, d, r int) []float64 {
	t.Helper()
	a := make([]float64, r*d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	u, got, err := RowBasis(a, r, d, 0)
	if err != nil || got != r {
		t.Fatalf("random basis: rank %d, err %v", got, err)
	}
	return u
}

func TestSubspaceOverlap(t *testing.T) {
	const d = 48
	rng := rand.New(rand.NewPCG(1, 2))
	// Axis-aligned subspaces with a known overlap.
	axes := func(idx ...int) []float64 {
		u := make([]float64, d*len(idx))
		for j, i := range idx {
			u[i*len(idx)+j] = 1
		}
		return u
	}
	u20 := randomBasis(t, rng, d, 20)
	for _, c := range []struct {
		name   string
		u      []float64
		ru     int
		w      []float64
		rw     int
		want   float64
		within float64
	}{
		{"identical", u20, 20, u20, 20, 1, 1e-12},
		{"orthogonal", axes(0, 1, 2), 3, axes(3, 4, 5, 6), 4, 0, 0},
		{"nested", axes(0, 1, 2, 3, 4), 5, axes(1, 3), 2, 1, 0},
		{"half", axes(0, 1), 2, axes(1, 2), 2, 0.5, 0},
		{"rotated 60°", axes(0), 1, func() []float64 { w := make([]float64, d); w[0], w[1] = 0.5, math.Sqrt(0.75); return w }(), 1, 0.25, 1e-15},
	} {
		got := SubspaceOverlap(c.u, c.ru, c.w, c.rw, d)
		if math.Abs(got-c.want) > c.within {
			t.Errorf("%s: overlap %.15g, want %g ± %g", c.name, got, c.want, c.within)
		}
	}
	// Identical: the ratio to the null is its maximum, 1/null.
	null := OverlapNull(d, 20, JLensRank)
	if r := SubspaceOverlap(u20, 20, u20[:], 20, d) / null; math.Abs(r-FrameRatioMax(d, 20, JLensRank)) > 1e-9 {
		t.Errorf("identical: ratio %.6g, want 1/null = %.6g", r, 1/null)
	}
	// Random rank-8 subspaces against a fixed rank-20 frame: the ratio averages 1.
	const trials = 400
	var sum float64
	for i := 0; i < trials; i++ {
		sum += SubspaceOverlap(u20, 20, randomBasis(t, rng, d, JLensRank), JLensRank, d) / null
	}
	if mean := sum / trials; math.Abs(mean-1) > 0.05 {
		t.Errorf("random subspaces: mean ratio %.4f, want 1 ± 0.05", mean)
	}
	if got := OverlapNull(192, 20, 8); math.Abs(got-0.1042) > 1e-4 {
		t.Errorf("null at d=192: %.4f, want 0.1042 (the authors' 0.104)", got)
	}
	if !math.IsNaN(SubspaceOverlap(u20, 20, u20, 19, d)) {
		t.Error("a basis that does not fit gave a number")
	}
}

func TestRowBasis(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const rows, cols = 30, 12
	// Rows in a 5-dimensional subspace: the whole basis has rank 5 and spans them.
	gen := randomBasis(t, rng, cols, 5) // cols×5
	a := make([]float64, rows*cols)
	for r := 0; r < rows; r++ {
		for j := 0; j < 5; j++ {
			c := rng.NormFloat64()
			for i := 0; i < cols; i++ {
				a[r*cols+i] += c * gen[i*5+j]
			}
		}
	}
	u, rank, err := RowBasis(a, rows, cols, 0)
	if err != nil || rank != 5 {
		t.Fatalf("rank %d, err %v; want 5", rank, err)
	}
	if got := SubspaceOverlap(u, rank, gen, 5, cols); math.Abs(got-1) > 1e-9 {
		t.Errorf("basis overlap with the generating subspace %.12f, want 1", got)
	}
	for x := 0; x < rank; x++ { // orthonormal columns
		for y := 0; y < rank; y++ {
			var dot float64
			for i := 0; i < cols; i++ {
				dot += u[i*rank+x] * u[i*rank+y]
			}
			want := 0.0
			if x == y {
				want = 1
			}
			if math.Abs(dot-want) > 1e-12 {
				t.Fatalf("columns %d,%d: dot %.3g, want %g", x, y, dot, want)
			}
		}
	}
	if _, k, _ := RowBasis(a, rows, cols, 3); k != 3 {
		t.Errorf("top-3 basis has rank %d", k)
	}
	if _, _, err := RowBasis([]float64{1, math.NaN()}, 1, 2, 0); err == nil {
		t.Error("a NaN entry gave a basis")
	}
}

// TestGramBasis checks that the top eigenspace of AᵀA is the top right singular subspace
// of A (RowBasis), with the eigenvalues the squared singular values, and the gap.
func TestGramBasis(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const rows, d = 40, 12
	a := make([]float64, rows*d)
	for i := range a {
		a[i] = rng.NormFloat64() * float64(1+i%d) // columns of growing scale: a clear spectrum
	}
	g := make([]float64, d*d)
	for r := 0; r < rows; r++ {
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				g[i*d+j] += a[r*d+i] * a[r*d+j]
			}
		}
	}
	u, ru, eig, err := GramBasis(g, d, 5)
	if err != nil || ru != 5 || len(eig) != d {
		t.Fatalf("GramBasis: rank %d, %d eigenvalues, %v", ru, len(eig), err)
	}
	w, rw, err := RowBasis(a, rows, d, 5)
	if err != nil {
		t.Fatal(err)
	}
	if o := SubspaceOverlap(u, ru, w, rw, d); math.Abs(o-1) > 1e-9 {
		t.Errorf("top-5 Gram eigenspace against the top-5 singular subspace: overlap %.12f, want 1", o)
	}
	for i := 1; i < d; i++ {
		if eig[i] > eig[i-1] {
			t.Fatalf("eigenvalues not largest first: %v", eig)
		}
	}
	if gp := Gap([]float64{4, 3, 1}, 2); math.Abs(gp-2.0/3) > 1e-12 {
		t.Errorf("Gap = %g, want 2/3", gp)
	}
	if gp := Gap([]float64{2, 2, 1}, 1); gp != 0 {
		t.Errorf("Gap of equal eigenvalues = %g, want 0", gp)
	}
	if _, _, _, err := GramBasis([]float64{1, math.NaN(), 0, 1}, 2, 1); err == nil {
		t.Error("a NaN Gram gave a basis")
	}
}
