package diagnostics

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// checkErr fails unless err is non-nil and contains want.
func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
	if !strings.HasPrefix(err.Error(), "diagnostics: ") {
		t.Errorf("error %q lacks the \"diagnostics: \" prefix", err)
	}
}

// checkNaNCurve is checkCurve where NaN in want requires NaN in got.
func checkNaNCurve(t *testing.T, name string, got, want []float64, eps float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s has length %d, want %d", name, len(got), len(want))
		return
	}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && !near(got[i], want[i], eps)) {
			t.Errorf("%s[%d] = %.17g, want %.17g (tol %g)", name, i, got[i], want[i], eps)
		}
	}
}

// expectPanic fails unless f panics with a message containing want.
func expectPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("no panic, want one containing %q", want)
			return
		}
		if !strings.Contains(fmt.Sprint(r), want) {
			t.Errorf("panic %q does not contain %q", r, want)
		}
	}()
	f()
}

func TestEntropyGeometryCases(t *testing.T) {
	tests := []struct {
		name string
		p    []float64
		want float64
	}{
		{"uniform 1", []float64{1}, 0},
		{"uniform 2", []float64{0.5, 0.5}, 1},
		{"uniform 4", []float64{0.25, 0.25, 0.25, 0.25}, 2},
		{"uniform 3 with trailing zeros", []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0}, math.Log2(3)},
		{"one-hot", []float64{0, 0, 1}, 0},
		{"dyadic", []float64{0.5, 0.25, 0.125, 0.125}, 1.75},
		{"empty", nil, 0},
	}
	for _, tc := range tests {
		checkScalar(t, "Entropy("+tc.name+")", Entropy(tc.p), tc.want, tol)
	}
	for _, n := range []int{5, 16, 20, 100} {
		u := make([]float64, n)
		for i := range u {
			u[i] = 1 / float64(n)
		}
		checkScalar(t, fmt.Sprintf("Entropy(uniform %d)", n), Entropy(u), math.Log2(float64(n)), tol)
	}
}

func TestEvidenceMass(t *testing.T) {
	row := []float64{0.1, 0.2, 0.3, 0.4}
	tests := []struct {
		name     string
		evidence []bool
		want     float64
	}{
		{"alternate", []bool{true, false, true, false}, 0.4},
		{"extra entries ignored", []bool{false, true, false, true, true, true}, 0.6},
		{"short evidence", []bool{true, true}, 0.3},
		{"all", []bool{true, true, true, true}, 1},
		{"none", []bool{false, false, false, false}, 0},
		{"nil", nil, 0},
	}
	for _, tc := range tests {
		checkScalar(t, "EvidenceMass("+tc.name+")", EvidenceMass(row, tc.evidence), tc.want, tol)
	}
}

// focusFixture builds 2 layers of attention, n=2, heads=2, p=2, t=4:
//
//	layer 0 head 0: uniform over 4 keys (2 bits); head 1: one-hot on key 0 (0 bits)
//	layer 1 head 0: uniform over keys 0,1 (1 bit); head 1: row 0 uniform over 2, row 1 over 4
func focusFixture() [][]float64 {
	const n, heads, p, tt = 2, 2, 2, 4
	rows := [2][2][2][]float64{
		{{{.25, .25, .25, .25}, {.25, .25, .25, .25}}, {{1, 0, 0, 0}, {1, 0, 0, 0}}},
		{{{.5, .5, 0, 0}, {.5, .5, 0, 0}}, {{.5, .5, 0, 0}, {.25, .25, .25, .25}}},
	}
	attn := make([][]float64, 2)
	for l := range attn {
		for range n {
			for h := range heads {
				for r := range p {
					attn[l] = append(attn[l], rows[l][h][r]...)
				}
			}
		}
		if len(attn[l]) != n*heads*p*tt {
			panic("fixture size")
		}
	}
	return attn
}

func TestAttentionFocus(t *testing.T) {
	attn := focusFixture()
	calls := 0
	// Sequence 0: only key 0 is consistent; sequence 1: keys 0 and 1.
	evidence := func(seq, row int) []bool {
		calls++
		if seq == 0 {
			return []bool{true, false, false, false}
		}
		return []bool{true, true, false, false, false} // one extra entry, ignored
	}
	f, err := AttentionFocus(attn, 2, 2, 2, 4, evidence)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 4 {
		t.Errorf("evidence called %d times, want n·p = 4", calls)
	}
	checkCurve(t, "Entropy[0]", f.Entropy[0], []float64{2, 0}, tol)
	checkCurve(t, "Entropy[1]", f.Entropy[1], []float64{1, 1.5}, tol)
	// Mass: L0H0 (0.25+0.5)/2; L0H1 1; L1H0 (0.5+1)/2; L1H1 (0.5+1+0.25+0.5)/4.
	checkCurve(t, "Mass[0]", f.Mass[0], []float64{0.375, 1}, tol)
	checkCurve(t, "Mass[1]", f.Mass[1], []float64{0.75, 0.5625}, tol)

	nf, err := AttentionFocus(attn, 2, 2, 2, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if nf.Mass != nil {
		t.Errorf("Mass = %v with nil evidence, want nil", nf.Mass)
	}
	checkCurve(t, "Entropy[1] (nil evidence)", nf.Entropy[1], []float64{1, 1.5}, tol)

	empty, err := AttentionFocus(nil, 2, 2, 2, 4, nil)
	if err != nil || len(empty.Entropy) != 0 {
		t.Errorf("no layers: Focus %+v, err %v; want empty, nil", empty, err)
	}
}

func TestAttentionFocusErrors(t *testing.T) {
	attn := focusFixture()
	tests := []struct {
		name              string
		attn              [][]float64
		n, heads, p, tLen int
		want              string
	}{
		{"zero n", attn, 0, 2, 2, 4, "sizes must be positive (n=0 heads=2 p=2 t=4)"},
		{"negative t", attn, 2, 2, 2, -1, "sizes must be positive"},
		{"short layer", [][]float64{attn[0], attn[1][:31]}, 2, 2, 2, 4, "layer 1 has 31 values, want 32"},
		{"wrong heads", attn, 2, 4, 2, 4, "layer 0 has 32 values, want 64"},
		{"overflow", attn, math.MaxInt, 2, 2, 4, "overflows int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := AttentionFocus(tc.attn, tc.n, tc.heads, tc.p, tc.tLen, nil)
			checkErr(t, err, "attention focus: ")
			checkErr(t, err, tc.want)
		})
	}
}

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

func TestAttentionDrift(t *testing.T) {
	up := []float64{0.1, 0.2, 0.3, 0.4}
	down := []float64{0.4, 0.3, 0.2, 0.1}
	flat := []float64{0.25, 0.25, 0.25, 0.25}
	peaked := []float64{0.7, 0.1, 0.1, 0.1}
	// corr(up, peaked) = −√0.6 (up has centred values −1.5,−.5,.5,1.5 ×0.1; peaked 0.45,−0.15×3).
	cat := func(rows ...[]float64) []float64 {
		var out []float64
		for _, r := range rows {
			out = append(out, r...)
		}
		return out
	}
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		{"identical", cat(up, peaked, down), cat(up, peaked, down), 0},
		{"reversed", up, down, 2},
		{"reversed rows", cat(up, down), cat(down, up), 2},
		{"half changed", cat(up, up), cat(up, down), 1},
		{"constant row skipped", cat(up, flat), cat(down, peaked), 2},
		{"constant on the other side", cat(flat, up), cat(peaked, up), 0},
		{"all constant", cat(flat, flat), cat(peaked, flat), 0},
		{"known correlation", up, peaked, 1 + math.Sqrt(0.6)},
		{"empty", nil, nil, 0},
		{"mismatched", up, cat(up, up), math.NaN()},
		{"not a multiple of rowLen", up[:3], down[:3], math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AttentionDrift(tc.a, tc.b, 4)
			if math.IsNaN(tc.want) {
				if !math.IsNaN(got) {
					t.Errorf("AttentionDrift = %v, want NaN", got)
				}
				return
			}
			checkScalar(t, "AttentionDrift", got, tc.want, 1e-12)
		})
	}
	if !math.IsNaN(AttentionDrift(up, up, 0)) {
		t.Error("AttentionDrift with rowLen 0 is not NaN")
	}
	if got := AttentionDrift(up, down, 4); !(got > 0) {
		t.Errorf("pattern vs its reverse: drift %v, want > 0", got)
	}
}

func TestSettleStep(t *testing.T) {
	steps := []int{0, 100, 200, 300, 400, 500, 600, 700}
	nan := math.NaN()
	tests := []struct {
		name   string
		steps  []int
		series []float64
		frac   float64
		want   int
		ok     bool
	}{
		// Final 0.98, range 9.1, band 0.91: 2 is 1.02 away, 1.2 and later within.
		{"decay", steps, []float64{10, 5, 2, 1.2, 0.9, 1.05, 1.0, 0.98}, 0.1, 300, true},
		// A late excursion resets the settle point.
		{"late excursion", steps, []float64{10, 1, 1, 1, 4, 1, 1, 1}, 0.1, 500, true},
		{"rising", steps, []float64{0, 0.5, 0.8, 0.95, 0.97, 1, 1, 1}, 0.1, 300, true},
		{"wide band", steps, []float64{10, 5, 2, 1.2, 0.9, 1.05, 1.0, 0.98}, 0.5, 100, true},
		{"frac 0", []int{1, 2, 3, 4, 5}, []float64{3, 2, 1, 1, 1}, 0, 3, true},
		{"negative frac", []int{1, 2, 3, 4, 5}, []float64{3, 2, 1, 1, 1}, -0.2, 3, true},
		{"constant", []int{5, 6, 7}, []float64{2, 2, 2}, 0.1, 5, true},
		{"last only moves", []int{1, 2, 3}, []float64{0, 0, 1}, 0.1, 3, false},
		{"single", []int{42}, []float64{1}, 0.1, 42, false},
		// NaNs are skipped: the reference is the last finite value, 1.
		{"NaN entries", []int{1, 2, 3, 4, 5, 6}, []float64{nan, 10, nan, 1, nan, nan}, 0.1, 4, false},
		{"leading NaN constant", []int{1, 2, 3}, []float64{nan, 2, 2}, 0.1, 2, true},
		{"all NaN", []int{1, 2}, []float64{nan, nan}, 0.1, -1, false},
		{"empty", nil, nil, 0.1, -1, false},
		{"mismatched", []int{1, 2}, []float64{1}, 0.1, -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := SettleStep(tc.steps, tc.series, tc.frac); got != tc.want || ok != tc.ok {
				t.Errorf("SettleStep = %d, %v, want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestEffectOf(t *testing.T) {
	base := Scores{BitErrorPosition: 0.01, KLBits: 0.02}
	worse := Scores{BitErrorPosition: 0.31, KLBits: 0.52}
	better := Scores{BitErrorPosition: 0.005, KLBits: 0.01}
	tests := []struct {
		name           string
		unit           string
		layer, head    int
		ablated        Scores
		wantHead       int
		dBits, dKL     float64
		positiveChange bool
	}{
		{"head hurts", UnitHead, 1, 3, worse, 3, 0.30, 0.50, true},
		{"head helps when removed", UnitHead, 0, 0, better, 0, -0.005, -0.01, false},
		{"mlp has no head", UnitMLP, 2, 5, worse, -1, 0.30, 0.50, true},
		{"attn", UnitAttn, 0, 0, base, -1, 0, 0, false},
		{"layer", UnitLayer, 1, -1, worse, -1, 0.30, 0.50, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := EffectOf(tc.unit, tc.layer, tc.head, base, tc.ablated)
			if e.Unit != tc.unit || e.Layer != tc.layer || e.Head != tc.wantHead {
				t.Errorf("Effect = %+v, want unit %q layer %d head %d", e, tc.unit, tc.layer, tc.wantHead)
			}
			checkScalar(t, "DeltaBits", e.DeltaBits, tc.dBits, 1e-15)
			checkScalar(t, "DeltaKL", e.DeltaKL, tc.dKL, 1e-15)
			if (e.DeltaBits > 0) != tc.positiveChange {
				t.Errorf("DeltaBits = %v: sign wrong (ablation that hurts must be positive)", e.DeltaBits)
			}
		})
	}
}

func TestHeadTableAndWorst(t *testing.T) {
	effects := []Effect{
		{Unit: UnitHead, Layer: 0, Head: 0, DeltaBits: 0.1},
		{Unit: UnitHead, Layer: 1, Head: 1, DeltaBits: 0.5},
		{Unit: UnitMLP, Layer: 0, Head: -1, DeltaBits: 0.9},
		{Unit: UnitHead, Layer: 0, Head: 1, DeltaBits: -0.2},
		{Unit: UnitHead, Layer: 2, Head: 0, DeltaBits: 7},  // outside the table
		{Unit: UnitHead, Layer: 0, Head: -1, DeltaBits: 7}, // outside the table
		{Unit: UnitHead, Layer: 1, Head: 0, DeltaBits: math.NaN()},
	}
	tab := HeadTable(effects, 2, 2)
	if len(tab) != 2 {
		t.Fatalf("HeadTable has %d layers, want 2", len(tab))
	}
	checkNaNCurve(t, "HeadTable[0]", tab[0], []float64{0.1, -0.2}, 0)
	checkNaNCurve(t, "HeadTable[1]", tab[1], []float64{math.NaN(), 0.5}, 0)
	sparse := HeadTable(effects[:1], 1, 3)
	checkNaNCurve(t, "HeadTable (sparse)", sparse[0], []float64{0.1, math.NaN(), math.NaN()}, 0)
	if empty := HeadTable(nil, 0, 4); len(empty) != 0 {
		t.Errorf("HeadTable with 0 layers = %v, want empty", empty)
	}

	w, ok := Worst(effects)
	if !ok || w.Unit != UnitHead || w.Layer != 2 || w.DeltaBits != 7 {
		t.Errorf("Worst = %+v, %v; want the first DeltaBits 7 head (layer 2)", w, ok)
	}
	w, ok = Worst(effects[:4])
	if !ok || w.Unit != UnitMLP || w.DeltaBits != 0.9 {
		t.Errorf("Worst = %+v, %v; want the mlp effect", w, ok)
	}
	w, ok = Worst([]Effect{{Unit: UnitHead, DeltaBits: math.NaN()}, {Unit: UnitAttn, DeltaBits: -1}})
	if !ok || w.Unit != UnitAttn {
		t.Errorf("Worst skipping NaN = %+v, %v; want the attn effect", w, ok)
	}
	if _, ok := Worst(nil); ok {
		t.Error("Worst(nil) reported an effect")
	}
	if _, ok := Worst([]Effect{{DeltaBits: math.NaN()}}); ok {
		t.Error("Worst of all-NaN reported an effect")
	}
}

func TestGeometryJSON(t *testing.T) {
	tests := []struct {
		name string
		v    any
		keys []string
	}{
		{"Manifold", Manifold{Share: []float64{1}, Pearson: 0.5, Spearman: 0.25, Points: [][]float64{{1, 2, 3}}, Entropy: []float64{2}},
			[]string{`"share":[1]`, `"pc1_entropy_pearson":0.5`, `"pc1_entropy_spearman":0.25`, `"points":[[1,2,3]]`, `"entropy":[2]`}},
		{"Effect", Effect{Unit: UnitMLP, Layer: 1, Head: -1, DeltaBits: 0.5, DeltaKL: 0.25},
			[]string{`"unit":"mlp"`, `"layer":1`, `"head":-1`, `"delta_bits":0.5`, `"delta_kl":0.25`}},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range tc.keys {
			if !strings.Contains(string(b), k) {
				t.Errorf("%s JSON %s does not contain %s", tc.name, b, k)
			}
		}
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
