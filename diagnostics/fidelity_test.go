package diagnostics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// eye is the n×n identity, row-major.
func eye(n int) []float64 {
	m := make([]float64, n*n)
	for i := range n {
		m[i*n+i] = 1
	}
	return m
}

// ones is a vector of n ones.
func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// TestEmbedKeyOrthogonalityKnown checks the authors' statistic on embeddings with a known
// answer: orthonormal embeddings through the identity give 0, identical (or opposite) ones
// 1, a pair at angle θ |cos θ|, a per-row scale (the RMSNorm factor) changes nothing.
func TestEmbedKeyOrthogonalityKnown(t *testing.T) {
	const eps = 1e-5
	cases := []struct {
		name string
		emb  []float64
		n, d int
		want float64
	}{
		{"orthonormal", eye(4), 4, 4, 0},
		{"identical", []float64{0.3, -0.2, 0.5, 0.3, -0.2, 0.5, 0.3, -0.2, 0.5}, 3, 3, 1},
		{"opposite", []float64{1, 2, -1, -2}, 2, 2, 1},
		{"angle 60°", []float64{1, 0, math.Cos(math.Pi / 3), math.Sin(math.Pi / 3)}, 2, 2, 0.5},
		{"angle 120° scaled rows", []float64{10, 0, 0.01 * math.Cos(2*math.Pi/3), 0.01 * math.Sin(2*math.Pi/3)}, 2, 2, 0.5},
		// Three unit vectors at 0°, 60°, 90°: |cos| 0.5, 0, √3/2 → mean (0.5+0+√3/2)/3.
		{"three", []float64{1, 0, 0.5, math.Sqrt(3) / 2, 0, 1}, 3, 2, (0.5 + math.Sqrt(3)/2) / 3},
	}
	for _, c := range cases {
		got, err := EmbedKeyOrthogonality(c.emb, c.n, c.d, ones(c.d), eps, eye(c.d), c.d, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(got) != 1 || math.Abs(got[0]-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %g", c.name, got, c.want)
		}
	}
}

// TestEmbedKeyOrthogonalityHeads checks the per-head column slice: W_K maps two orthogonal
// embeddings to the same key in head 0's columns and to orthogonal keys in head 1's.
func TestEmbedKeyOrthogonalityHeads(t *testing.T) {
	emb := []float64{1, 0, 0, 0, 0, 1, 0, 0}
	// W_K is d×width = 4×4 (input × output); columns 0,1 are head 0, 2,3 head 1.
	wk := []float64{
		1, 0, 1, 0, // input 0
		1, 0, 0, 1, // input 1
		0, 0, 0, 0,
		0, 0, 0, 0,
	}
	got, err := EmbedKeyOrthogonality(emb, 2, 4, ones(4), 1e-5, wk, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || math.Abs(got[0]-1) > 1e-12 || math.Abs(got[1]) > 1e-12 {
		t.Errorf("per head %v, want [1 0]", got)
	}
	// A non-square W_K (d=4 → width 6, 3 heads of 2): head 2 sees the pair at 60°.
	wk6 := make([]float64, 4*6)
	wk6[0*6+0], wk6[1*6+0] = 1, 1                               // head 0: both → (1, 0)
	wk6[0*6+2], wk6[1*6+3] = 1, 1                               // head 1: orthogonal
	wk6[0*6+4], wk6[1*6+4], wk6[1*6+5] = 1, 0.5, math.Sqrt(3)/2 // head 2: (1,0) and (½, √3/2)
	got, err = EmbedKeyOrthogonality(emb, 2, 4, ones(4), 1e-5, wk6, 6, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 0, 0.5}
	for h := range want {
		if math.Abs(got[h]-want[h]) > 1e-12 {
			t.Errorf("6-wide W_K head %d: %g, want %g", h, got[h], want[h])
		}
	}
}

// TestEmbedKeyOrthogonalityScale checks that the RMSNorm's learned gain is applied:
// (1, 1) and (1, −1) are orthogonal, but with gain (2, 1) the keys are (2, 1) and (2, −1),
// cosine 3/5; a zero gain component that removes what tells them apart gives 1.
func TestEmbedKeyOrthogonalityScale(t *testing.T) {
	emb := []float64{1, 1, 1, -1}
	for _, c := range []struct {
		scale []float64
		want  float64
	}{
		{[]float64{1, 1}, 0},
		{[]float64{2, 1}, 0.6},
		{[]float64{-2, 1}, 0.6},
		{[]float64{1, 0}, 1},
	} {
		got, err := EmbedKeyOrthogonality(emb, 2, 2, c.scale, 1e-5, eye(2), 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got[0]-c.want) > 1e-12 {
			t.Errorf("gain %v: %g, want %g", c.scale, got[0], c.want)
		}
	}
}

// TestEmbedKeyOrthogonalityBruteForce compares random sizes with the formula written out:
// RMSNorm with gain, x·W_K, head slice, pairwise |cos|.
func TestEmbedKeyOrthogonalityBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	const n, d, width, heads, eps = 9, 12, 8, 4, 1e-5
	emb, wk, g := make([]float64, n*d), make([]float64, d*width), make([]float64, d)
	for i := range emb {
		emb[i] = 0.02 * r.NormFloat64()
	}
	for i := range wk {
		wk[i] = 0.02 * r.NormFloat64()
	}
	for i := range g {
		g[i] = 1 + 0.3*r.NormFloat64()
	}
	got, err := EmbedKeyOrthogonality(emb, n, d, g, eps, wk, width, heads)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([][]float64, n)
	for i := range n {
		ms := 0.0
		for j := range d {
			ms += emb[i*d+j] * emb[i*d+j] / d
		}
		keys[i] = make([]float64, width)
		for c := range width {
			for j := range d {
				keys[i][c] += emb[i*d+j] / math.Sqrt(ms+eps) * g[j] * wk[j*width+c]
			}
		}
	}
	hd := width / heads
	for h := range heads {
		sum, pairs := 0.0, 0
		for i := range n {
			for j := i + 1; j < n; j++ {
				var dot, ni, nj float64
				for c := h * hd; c < (h+1)*hd; c++ {
					dot += keys[i][c] * keys[j][c]
					ni += keys[i][c] * keys[i][c]
					nj += keys[j][c] * keys[j][c]
				}
				sum += math.Abs(dot) / math.Sqrt(ni*nj)
				pairs++
			}
		}
		if want := sum / float64(pairs); math.Abs(got[h]-want) > 1e-12 {
			t.Errorf("head %d: %g, want %g", h, got[h], want)
		}
	}
}

func TestEmbedKeyOrthogonalityErrors(t *testing.T) {
	emb := []float64{1, 0, 0, 1}
	_, err := EmbedKeyOrthogonality(emb, 2, 2, ones(2), 1e-5, eye(2), 2, 0)
	checkErr(t, err, "sizes must be positive")
	_, err = EmbedKeyOrthogonality(emb, 2, 2, ones(2), 1e-5, make([]float64, 6), 3, 2)
	checkErr(t, err, "not divisible")
	_, err = EmbedKeyOrthogonality(emb[:3], 2, 2, ones(2), 1e-5, eye(2), 2, 1)
	checkErr(t, err, "emb has 3 values")
	_, err = EmbedKeyOrthogonality(emb, 2, 2, ones(3), 1e-5, eye(2), 2, 1)
	checkErr(t, err, "scale has 3 values")
	_, err = EmbedKeyOrthogonality(emb, 2, 2, ones(2), 1e-5, eye(3), 2, 1)
	checkErr(t, err, "W_K has 9 values")
	_, err = EmbedKeyOrthogonality(emb, 2, 2, ones(2), 1e-5, make([]float64, 4), 2, 1)
	checkErr(t, err, "need at least 2 tokens")
	_, err = EmbedKeyOrthogonality([]float64{0, 0, 1, 0}, 2, 2, ones(2), 0, eye(2), 2, 1)
	checkErr(t, err, "have 1 of 2")
}

// TestSequenceManifold builds three sequences of 19 positions: in sequence 1 the points lie
// on a line whose coordinate is the entropy (plus a much smaller orthogonal wobble), so PC1
// is the entropy exactly and |ρ| = 1; the other sequences are noise. SequenceManifold(…, 1)
// sees only sequence 1's 19 points.
func TestSequenceManifold(t *testing.T) {
	const seqs, p, dim = 3, 19, 5
	r := rand.New(rand.NewPCG(3, 5))
	x := make([]float64, seqs*p*dim)
	ent := make([]float64, seqs*p)
	dir := []float64{0.6, 0, 0.8, 0, 0} // unit
	wob := []float64{0, 1, 0, 0, 0}
	for s := range seqs {
		for i := range p {
			h := math.Log2(float64(20 - i))
			ent[s*p+i] = h
			row := x[(s*p+i)*dim : (s*p+i+1)*dim]
			for j := range row {
				if s == 1 {
					row[j] = 3*h*dir[j] + 0.01*math.Sin(float64(i))*wob[j]
				} else {
					row[j] = r.NormFloat64()
				}
			}
		}
	}
	m, err := SequenceManifold(x, seqs, p, dim, ent, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Points) != p || len(m.Entropy) != p {
		t.Errorf("%d points and %d entropies, want %d", len(m.Points), len(m.Entropy), p)
	}
	if math.Abs(math.Abs(m.Pearson)-1) > 1e-9 || math.Abs(math.Abs(m.Spearman)-1) > 1e-12 {
		t.Errorf("ρ Pearson %g Spearman %g, want ±1", m.Pearson, m.Spearman)
	}
	if !(m.Share[0] > 0.999) {
		t.Errorf("PC1 share %g, want ≈1", m.Share[0])
	}
	hMean := 0.0
	for _, h := range ent[p : 2*p] {
		hMean += h / p
	}
	for i, pt := range m.Points {
		if m.Entropy[i] != ent[p+i] {
			t.Fatalf("point %d has entropy %g, want sequence 1's %g", i, m.Entropy[i], ent[p+i])
		}
		// The PC1 coordinate is ±3·(h − mean h), up to the wobble.
		if want := 3 * (ent[p+i] - hMean); math.Abs(math.Abs(pt[0])-math.Abs(want)) > 0.02 {
			t.Errorf("point %d: PC1 %g, want ±%g", i, pt[0], want)
		}
	}
	// The same rows through ValueManifold directly.
	v, err := ValueManifold(x[p*dim:2*p*dim], p, dim, ent[p:2*p], 0)
	if err != nil || v.Spearman != m.Spearman || v.Share[0] != m.Share[0] {
		t.Errorf("ValueManifold on the slice gives %+v, %v", v, err)
	}
	// The noise sequence has no such correlation.
	if m0, err := SequenceManifold(x, seqs, p, dim, ent, 0); err != nil || math.Abs(m0.Spearman) > 0.9 {
		t.Errorf("noise sequence: ρ %g, %v", m0.Spearman, err)
	}
	_, err = SequenceManifold(x, seqs, p, dim, ent, 3)
	checkErr(t, err, "sequence 3 outside [0, 3)")
	_, err = SequenceManifold(x[:10], seqs, p, dim, ent, 0)
	checkErr(t, err, "x has 10 values")
	_, err = SequenceManifold(x[:2*dim], 1, 2, dim, ent[:2], 0)
	checkErr(t, err, "need n ≥ 3")
}
