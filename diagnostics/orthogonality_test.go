package diagnostics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestMeanAbsOffDiagCosine(t *testing.T) {
	identity := func(n int) []float64 {
		m := make([]float64, n*n)
		for i := range n {
			m[i*n+i] = 1
		}
		return m
	}
	// Random orthonormal rows: a rotation of the identity by Gram–Schmidt.
	r := rand.New(rand.NewPCG(11, 12))
	const od = 6
	ortho := make([]float64, od*od)
	for i := range od {
		v := ortho[i*od : (i+1)*od]
		for k := range v {
			v[k] = r.NormFloat64()
		}
		for j := range i {
			u := ortho[j*od : (j+1)*od]
			var d float64
			for k := range v {
				d += v[k] * u[k]
			}
			for k := range v {
				v[k] -= d * u[k]
			}
		}
		var nn float64
		for _, x := range v {
			nn += x * x
		}
		for k := range v {
			v[k] /= math.Sqrt(nn)
		}
	}
	for i := range od { // scale must not matter
		for k := range od {
			ortho[i*od+k] *= float64(i + 1)
		}
	}
	tests := []struct {
		name   string
		rows   []float64
		n, dim int
		want   float64
	}{
		{"identity 4", identity(4), 4, 4, 0},
		{"identity 64", identity(64), 64, 64, 0},
		{"scaled random orthogonal", ortho, od, od, 0},
		{"identical rows", []float64{1, 2, 3, 1, 2, 3, 1, 2, 3}, 3, 3, 1},
		{"identical up to sign and scale", []float64{1, 2, -3, -2, -4, 6}, 2, 3, 1},
		{"45 degrees", []float64{1, 0, 1, 1}, 2, 2, 1 / math.Sqrt2},
		// Pairs: (e1,e1+e2) 1/√2, (e1,e2) 0, (e1+e2,e2) 1/√2 → mean √2/3.
		{"three rows", []float64{1, 0, 1, 1, 0, 1}, 3, 2, math.Sqrt2 / 3},
		{"zero row skipped", []float64{1, 0, 0, 0, 0, 1}, 3, 2, 0},
		{"zero row skipped, opposite", []float64{2, 0, 0, 0, -1, 0}, 3, 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MeanAbsOffDiagCosine(tc.rows, tc.n, tc.dim)
			if err != nil {
				t.Fatal(err)
			}
			checkScalar(t, "MeanAbsOffDiagCosine", got, tc.want, 1e-12)
		})
	}
}

func TestMeanAbsOffDiagCosineErrors(t *testing.T) {
	tests := []struct {
		name   string
		rows   []float64
		n, dim int
		want   string
	}{
		{"short", make([]float64, 5), 2, 3, "rows has 5 values, want 6 (n=2 dim=3)"},
		{"zero n", nil, 0, 3, "sizes must be positive (n=0 dim=3)"},
		{"zero dim", nil, 2, 0, "sizes must be positive"},
		{"one row", []float64{1, 2}, 1, 2, "need at least 2 rows with non-zero norm, have 1 of 1"},
		{"one usable row", []float64{1, 2, 0, 0}, 2, 2, "need at least 2 rows with non-zero norm, have 1 of 2"},
		{"all zero", make([]float64, 6), 3, 2, "need at least 2 rows with non-zero norm, have 0 of 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := MeanAbsOffDiagCosine(tc.rows, tc.n, tc.dim)
			checkErr(t, err, "orthogonality: "+tc.want)
		})
	}
}

func TestRandomOrthogonality(t *testing.T) {
	// exact is E|cos| for two independent isotropic vectors in d dimensions: Γ(d/2)/(√π Γ((d+1)/2)).
	exact := func(d int) float64 {
		a, _ := math.Lgamma(float64(d) / 2)
		b, _ := math.Lgamma(float64(d+1) / 2)
		return math.Exp(a-b) / math.Sqrt(math.Pi)
	}
	tests := []struct {
		n, dim, trials int
		relTol         float64 // against sqrt(2/(π·dim))
	}{
		{32, 64, 20, 0.10},
		{32, 256, 10, 0.10},
		{64, 16, 10, 0.10},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("n=%d,dim=%d", tc.n, tc.dim), func(t *testing.T) {
			got := RandomOrthogonality(tc.n, tc.dim, 42, tc.trials, false)
			approx := math.Sqrt(2 / (math.Pi * float64(tc.dim)))
			if math.Abs(got-approx) > tc.relTol*approx {
				t.Errorf("RandomOrthogonality = %.5f, want sqrt(2/(π·%d)) = %.5f within %.0f%%",
					got, tc.dim, approx, 100*tc.relTol)
			}
			// The Monte Carlo mean is within 3% of the exact expectation.
			if ex := exact(tc.dim); math.Abs(got-ex) > 0.03*ex {
				t.Errorf("RandomOrthogonality = %.5f, exact expectation %.5f (tol 3%%)", got, ex)
			}
			if again := RandomOrthogonality(tc.n, tc.dim, 42, tc.trials, false); again != got {
				t.Errorf("same seed gave %v then %v", got, again)
			}
		})
	}
	if a, b := RandomOrthogonality(8, 8, 1, 3, false), RandomOrthogonality(8, 8, 2, 3, false); a == b {
		t.Errorf("seeds 1 and 2 gave the same value %v", a)
	}
	for _, bad := range [][3]int{{1, 8, 1}, {8, 0, 1}, {8, 8, 0}} {
		if v := RandomOrthogonality(bad[0], bad[1], 1, bad[2], false); !math.IsNaN(v) {
			t.Errorf("RandomOrthogonality(n=%d, dim=%d, trials=%d) = %v, want NaN", bad[0], bad[1], bad[2], v)
		}
	}
}

func TestTokenMeans(t *testing.T) {
	vecs := []float64{
		1, 2, // token 2
		10, 20, // token 0
		3, 4, // token 2
		7, 7, // token 5
		5, 6, // token 2
	}
	tokens := []int{2, 0, 2, 5, 2}
	tests := []struct {
		name  string
		keep  func(int) bool
		means []float64
		ids   []int
	}{
		{"all", nil, []float64{10, 20, 3, 4, 7, 7}, []int{0, 2, 5}},
		{"skip 5", func(tok int) bool { return tok != 5 }, []float64{10, 20, 3, 4}, []int{0, 2}},
		{"none", func(int) bool { return false }, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			means, ids := TokenMeans(vecs, tokens, 5, 2, 6, tc.keep)
			checkCurve(t, "means", means, tc.means, tol)
			if fmt.Sprint(ids) != fmt.Sprint(tc.ids) {
				t.Errorf("ids = %v, want %v", ids, tc.ids)
			}
		})
	}
	if vecs[0] != 1 || vecs[4] != 3 {
		t.Error("TokenMeans modified its input")
	}
	expectPanic(t, "inconsistent sizes", func() { TokenMeans(vecs, tokens, 5, 3, 6, nil) })
	expectPanic(t, "inconsistent sizes", func() { TokenMeans(vecs, tokens[:4], 5, 2, 6, nil) })
	expectPanic(t, "token 5 at row 3 outside [0, 5)", func() { TokenMeans(vecs, tokens, 5, 2, 5, nil) })
}

func TestKeyOrthogonality(t *testing.T) {
	// width 4, heads 2. Head 0 (columns 0,1): token 0 along x, token 1 along y → 0.
	// Head 1 (columns 2,3): every token's mean key along (1,1) → 1.
	// Token 3 is dropped by keep; it would break head 0's orthogonality.
	keys := []float64{
		1, 0, 1, 1, // token 0
		3, 0, 2, 2, // token 0 (mean 2,0,1.5,1.5)
		0, 5, 3, 3, // token 1
		1, 1, 0, 0, // token 3
	}
	tokens := []int{0, 0, 1, 3}
	got, err := KeyOrthogonality(keys, tokens, 4, 4, 2, func(tok int) bool { return tok != 3 }, false)
	if err != nil {
		t.Fatal(err)
	}
	checkCurve(t, "KeyOrthogonality", got, []float64{0, 1}, 1e-12)

	// With token 3 kept, head 0 has rows x, y, (1,1)/√2: mean |cos| = √2/3; head 1
	// has a zero mean key for token 3, skipped, leaving 1.
	all, err := KeyOrthogonality(keys, tokens, 4, 4, 2, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	checkCurve(t, "KeyOrthogonality (keep all)", all, []float64{math.Sqrt2 / 3, 1}, 1e-12)

	// One head over the whole width agrees with MeanAbsOffDiagCosine of TokenMeans.
	means, ids := TokenMeans(keys, tokens, 4, 4, 4, nil)
	want, err := MeanAbsOffDiagCosine(means, len(ids), 4)
	if err != nil {
		t.Fatal(err)
	}
	one, err := KeyOrthogonality(keys, tokens, 4, 4, 1, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	checkCurve(t, "KeyOrthogonality (1 head)", one, []float64{want}, 1e-15)
}

func TestKeyOrthogonalityErrors(t *testing.T) {
	keys := make([]float64, 12)
	for i := range keys {
		keys[i] = float64(i + 1)
	}
	tests := []struct {
		name                string
		keys                []float64
		tokens              []int
		nrows, width, heads int
		want                string
	}{
		{"zero heads", keys, []int{0, 1, 2}, 3, 4, 0, "sizes must be positive (nrows=3 width=4 heads=0)"},
		{"indivisible", keys, []int{0, 1, 2}, 3, 4, 3, "width 4 not divisible by heads 3"},
		{"short keys", keys[:11], []int{0, 1, 2}, 3, 4, 2, "keys has 11 values, want 12"},
		{"short tokens", keys, []int{0, 1}, 3, 4, 2, "tokens has 2 values, want 3"},
		{"negative token", keys, []int{0, -1, 2}, 3, 4, 2, "negative token -1 at row 1"},
		{"one token", keys, []int{4, 4, 4}, 3, 4, 2, "head 0: need at least 2 tokens with non-zero mean key, have 1 of 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := KeyOrthogonality(tc.keys, tc.tokens, tc.nrows, tc.width, tc.heads, nil, false)
			checkErr(t, err, "key orthogonality: "+tc.want)
		})
	}
}

// Keys that share one common direction plus orthogonal parts look aligned raw and
// orthogonal once centred; the centred random baseline stays near the raw one.
func TestKeyOrthogonalityCentred(t *testing.T) {
	const n, dim = 4, 8
	keys := make([]float64, n*dim)
	tokens := make([]int, n)
	for i := 0; i < n; i++ {
		tokens[i] = i
		keys[i*dim+0] = 5 // shared direction
		keys[i*dim+1+i] = 1
	}
	raw, err := KeyOrthogonality(keys, tokens, n, dim, 1, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	cen, err := KeyOrthogonality(keys, tokens, n, dim, 1, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	// Raw: cos = 25/26. Centred: the parts e_i − mean over 4 one-hot vectors have cos −1/3.
	if math.Abs(raw[0]-25.0/26) > 1e-12 || math.Abs(cen[0]-1.0/3) > 1e-12 {
		t.Errorf("raw %g (want %g), centred %g (want 1/3)", raw[0], 25.0/26, cen[0])
	}
	r0, r1 := RandomOrthogonality(20, 64, 1, 20, false), RandomOrthogonality(20, 64, 1, 20, true)
	if math.Abs(r0-r1) > 0.15*r0 {
		t.Errorf("random baseline raw %g, centred %g: centring 20 vectors should barely move it", r0, r1)
	}
}
