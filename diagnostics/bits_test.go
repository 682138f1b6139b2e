package diagnostics

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

const tol = 1e-12

func near(a, b, eps float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= eps
}

func checkScalar(t *testing.T, name string, got, want, eps float64) {
	t.Helper()
	if !near(got, want, eps) {
		t.Errorf("%s = %.17g, want %.17g (tol %g)", name, got, want, eps)
	}
}

func checkCurve(t *testing.T, name string, got, want []float64, eps float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s has length %d, want %d", name, len(got), len(want))
		return
	}
	for i := range want {
		if !near(got[i], want[i], eps) {
			t.Errorf("%s[%d] = %.17g, want %.17g (tol %g)", name, i, got[i], want[i], eps)
		}
	}
}

// randDist returns a random strictly positive distribution over c classes.
func randDist(r *rand.Rand, c int) []float64 {
	d := make([]float64, c)
	var s float64
	for i := range d {
		d[i] = r.Float64() + 1e-3
		s += d[i]
	}
	for i := range d {
		d[i] /= s
	}
	return d
}

// randProbs returns n*positions random distributions over classes, flat.
func randProbs(r *rand.Rand, n, positions, classes int) []float64 {
	out := make([]float64, 0, n*positions*classes)
	for range n * positions {
		out = append(out, randDist(r, classes)...)
	}
	return out
}

func TestScoreUniformVersusOneHot(t *testing.T) {
	for _, c := range []int{2, 3, 5, 20, 256} {
		t.Run(fmt.Sprintf("C=%d", c), func(t *testing.T) {
			const n, positions = 3, 4
			q := make([]float64, n*positions*c)
			p := make([]float64, n*positions*c)
			for k := range n * positions {
				for j := range c {
					q[k*c+j] = 1 / float64(c)
				}
				p[k*c+c-1] = 1 // one-hot on the last class; argmax of uniform q is class 0
			}
			s, err := Score(q, p, n, positions, c)
			if err != nil {
				t.Fatal(err)
			}
			lc := math.Log2(float64(c))
			checkScalar(t, "BitErrorPosition", s.BitErrorPosition, lc, tol)
			checkScalar(t, "BitErrorSample", s.BitErrorSample, lc, tol)
			checkScalar(t, "KLBits", s.KLBits, lc, tol)
			checkScalar(t, "TVD", s.TVD, 1-1/float64(c), tol)
			checkScalar(t, "Accuracy", s.Accuracy, 0, 0)
			for j := range positions {
				checkScalar(t, fmt.Sprintf("ModelEntropy[%d]", j), s.PerPosition.ModelEntropy[j], lc, tol)
				checkScalar(t, fmt.Sprintf("BayesEntropy[%d]", j), s.PerPosition.BayesEntropy[j], 0, 0)
			}
		})
	}
}

func TestScoreIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	oneHot := make([]float64, 2*3*4)
	for k := range 2 * 3 {
		oneHot[k*4+k%4] = 1
	}
	tests := []struct {
		name                 string
		q                    []float64
		n, positions, classs int
	}{
		{"random", randProbs(r, 4, 5, 7), 4, 5, 7},
		{"one-hot", oneHot, 2, 3, 4},
		{"single class", []float64{1, 1, 1}, 1, 3, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := append([]float64(nil), tc.q...)
			s, err := Score(tc.q, p, tc.n, tc.positions, tc.classs)
			if err != nil {
				t.Fatal(err)
			}
			checkScalar(t, "BitErrorPosition", s.BitErrorPosition, 0, tol)
			checkScalar(t, "BitErrorSample", s.BitErrorSample, 0, tol)
			checkScalar(t, "KLBits", s.KLBits, 0, tol)
			checkScalar(t, "TVD", s.TVD, 0, tol)
			checkScalar(t, "Accuracy", s.Accuracy, 1, 0)
			zeros := make([]float64, tc.positions)
			ones := make([]float64, tc.positions)
			for i := range ones {
				ones[i] = 1
			}
			checkCurve(t, "BitError", s.PerPosition.BitError, zeros, tol)
			checkCurve(t, "KLBits", s.PerPosition.KLBits, zeros, tol)
			checkCurve(t, "TVD", s.PerPosition.TVD, zeros, tol)
			checkCurve(t, "Accuracy", s.PerPosition.Accuracy, ones, 0)
			checkCurve(t, "ModelEntropy vs BayesEntropy", s.PerPosition.ModelEntropy, s.PerPosition.BayesEntropy, tol)
		})
	}
}

// TestScoreBitErrorAVersusB has two sequences whose entropy errors cancel in the
// mean: sequence 1's q is too flat, sequence 2's too peaked.
func TestScoreBitErrorAVersusB(t *testing.T) {
	a := []float64{0.25, 0.25, 0.25, 0.25}  // H = 2 bits
	b := []float64{0.5, 0.25, 0.125, 0.125} // H = 1.75 bits
	// seq 1: p*=b, q=a (H(q) 0.25 too high); seq 2: p*=a, q=b (0.25 too low).
	q := append(append([]float64(nil), a...), b...)
	p := append(append([]float64(nil), b...), a...)
	s, err := Score(q, p, 2, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	// KL(b‖a) = 0.5·1 + 0.25·0 + 2·0.125·(−1) = 0.25; KL(a‖b) = 0.25·(−1+0+1+1) = 0.25.
	// TVD(a,b) = ½(0.25+0+0.125+0.125) = 0.25. Both argmaxes (class 0) are MAP classes.
	checkScalar(t, "BitErrorPosition (a)", s.BitErrorPosition, 0, tol)
	checkScalar(t, "BitErrorSample (b)", s.BitErrorSample, 0.25, tol)
	checkScalar(t, "KLBits", s.KLBits, 0.25, tol)
	checkScalar(t, "TVD", s.TVD, 0.25, tol)
	checkScalar(t, "Accuracy", s.Accuracy, 1, 0)
	checkCurve(t, "ModelEntropy", s.PerPosition.ModelEntropy, []float64{1.875}, tol)
	checkCurve(t, "BayesEntropy", s.PerPosition.BayesEntropy, []float64{1.875}, tol)
	checkCurve(t, "BitError", s.PerPosition.BitError, []float64{0}, tol)
}

func TestScorePerPosition(t *testing.T) {
	h := 2 - 0.75*math.Log2(3) // H(0.25, 0.75) in bits
	q := []float64{
		// sequence 1, positions 0..2
		0.5, 0.5,
		0.5, 0.5,
		0.25, 0.75,
		// sequence 2
		1, 0,
		0.5, 0.5,
		0.5, 0.5,
	}
	p := []float64{
		0.5, 0.5,
		0, 1,
		0.5, 0.5,
		1, 0,
		1, 0,
		0.25, 0.75,
	}
	// Per sample (Hq, Hp, KL, TVD, correct):
	//   s1: (1,1,0,0,1) (1,0,1,.5,0) (h,1,1−½log2 3,.25,1)
	//   s2: (0,0,0,0,1) (1,0,1,.5,1) (1,h,1−h,.25,0)
	kl2 := ((1 - 0.5*math.Log2(3)) + (1 - h)) / 2
	s, err := Score(q, p, 2, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	pc := s.PerPosition
	checkCurve(t, "ModelEntropy", pc.ModelEntropy, []float64{0.5, 1, (h + 1) / 2}, tol)
	checkCurve(t, "BayesEntropy", pc.BayesEntropy, []float64{0.5, 0, (1 + h) / 2}, tol)
	checkCurve(t, "BitError", pc.BitError, []float64{0, 1, 0}, tol)
	checkCurve(t, "KLBits", pc.KLBits, []float64{0, 1, kl2}, tol)
	checkCurve(t, "TVD", pc.TVD, []float64{0, 0.5, 0.25}, tol)
	checkCurve(t, "Accuracy", pc.Accuracy, []float64{1, 0.5, 0.5}, 0)
	checkScalar(t, "BitErrorPosition", s.BitErrorPosition, 1.0/3, tol)
	checkScalar(t, "BitErrorSample", s.BitErrorSample, (2-h)/3, tol)
	checkScalar(t, "KLBits", s.KLBits, (1+kl2)/3, tol)
	checkScalar(t, "TVD", s.TVD, 0.25, tol)
	checkScalar(t, "Accuracy", s.Accuracy, 2.0/3, tol)
}

func TestScoreKLClamp(t *testing.T) {
	p := []float64{0.5, 0.5}
	q := []float64{1, 0}
	if got := KL(p, q); !math.IsInf(got, 1) {
		t.Errorf("KL with q=0 where p>0 = %v, want +Inf", got)
	}
	s, err := Score(q, p, 1, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	// 0.5·log2(0.5/1) + 0.5·log2(0.5/1e-30) = 15·log2(10) − 1.
	checkScalar(t, "KLBits (clamped)", s.KLBits, 15*math.Log2(10)-1, 1e-10)
	checkScalar(t, "BitErrorSample", s.BitErrorSample, 1, tol)
	// Subnormal-range q below the floor still gets its exact entropy term.
	q2 := []float64{1 - 1e-40, 1e-40}
	s2, err := Score(q2, p, 1, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkScalar(t, "ModelEntropy (tiny q)", s2.PerPosition.ModelEntropy[0], Entropy(q2), tol)
	checkScalar(t, "KLBits (tiny q)", s2.KLBits, 15*math.Log2(10)-1, 1e-10)
}

func TestScoreAccuracyMAPTolerance(t *testing.T) {
	tests := []struct {
		name string
		q, p []float64
		want float64
	}{
		{"exact max", []float64{0.1, 0.8, 0.1}, []float64{0.2, 0.5, 0.3}, 1},
		{"within 1e-9 of max", []float64{0.1, 0.8, 0.1}, []float64{0.5, 0.5 - 1e-12, 1e-12}, 1},
		{"tied posterior", []float64{0.1, 0.1, 0.8}, []float64{0.4, 0.2, 0.4}, 1},
		{"not MAP", []float64{0.1, 0.8, 0.1}, []float64{0.5, 0.4, 0.1}, 0},
		{"q tie goes to first class", []float64{0.4, 0.4, 0.2}, []float64{0.1, 0.8, 0.1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Score(tc.q, tc.p, 1, 1, 3)
			if err != nil {
				t.Fatal(err)
			}
			checkScalar(t, "Accuracy", s.Accuracy, tc.want, 0)
		})
	}
}

func TestScoreErrors(t *testing.T) {
	tests := []struct {
		name                  string
		q, p                  []float64
		n, positions, classes int
		wantSub               string
	}{
		{"short q", make([]float64, 10), make([]float64, 12), 1, 3, 4,
			"diagnostics: score: q has 10 values, want 12 (n=1 positions=3 classes=4)"},
		{"long p", make([]float64, 12), make([]float64, 13), 1, 3, 4,
			"diagnostics: score: p has 13 values, want 12 (n=1 positions=3 classes=4)"},
		{"nil q", nil, make([]float64, 6), 2, 1, 3, "q has 0 values, want 6"},
		{"zero n", nil, nil, 0, 3, 4, "sizes must be positive (n=0 positions=3 classes=4)"},
		{"negative positions", nil, nil, 1, -1, 4, "sizes must be positive"},
		{"zero classes", nil, nil, 1, 3, 0, "sizes must be positive"},
		{"overflow", nil, nil, math.MaxInt, 2, 2, "overflows int"},
		{"overflow positions*classes", nil, nil, 1, math.MaxInt, 3, "overflows int"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Score(tc.q, tc.p, tc.n, tc.positions, tc.classes)
			if err == nil {
				t.Fatalf("Score returned no error, scores %+v", s)
			}
			if !strings.Contains(err.Error(), tc.wantSub) {
				t.Errorf("error %q does not contain %q", err, tc.wantSub)
			}
			if s.PerPosition.BitError != nil || s.Accuracy != 0 {
				t.Errorf("Score returned non-zero Scores with error: %+v", s)
			}
			// ScoreInto leaves s untouched on error.
			prev := Scores{BitErrorPosition: 7, PerPosition: PositionCurves{TVD: []float64{3}}}
			if err := ScoreInto(&prev, tc.q, tc.p, tc.n, tc.positions, tc.classes); err == nil {
				t.Fatal("ScoreInto returned no error")
			}
			if prev.BitErrorPosition != 7 || len(prev.PerPosition.TVD) != 1 || prev.PerPosition.TVD[0] != 3 {
				t.Errorf("ScoreInto modified s on error: %+v", prev)
			}
		})
	}
	if err := ScoreInto(nil, []float64{1}, []float64{1}, 1, 1, 1); err == nil {
		t.Error("ScoreInto(nil, ...) returned no error")
	}
}

func TestScoreIntoReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, positions, classes = 8, 6, 5
	q1, p1 := randProbs(r, n, positions, classes), randProbs(r, n, positions, classes)
	q2, p2 := randProbs(r, n, positions, classes), randProbs(r, n, positions, classes)
	var s Scores
	if err := ScoreInto(&s, q1, p1, n, positions, classes); err != nil {
		t.Fatal(err)
	}
	first := &s.PerPosition.KLBits[0]
	if err := ScoreInto(&s, q2, p2, n, positions, classes); err != nil {
		t.Fatal(err)
	}
	if &s.PerPosition.KLBits[0] != first {
		t.Error("ScoreInto reallocated PerPosition.KLBits for a repeated size")
	}
	fresh, err := Score(q2, p2, n, positions, classes)
	if err != nil {
		t.Fatal(err)
	}
	// Reused slices must be reset, not accumulated: results equal a fresh Score.
	checkScalar(t, "BitErrorPosition", s.BitErrorPosition, fresh.BitErrorPosition, 0)
	checkScalar(t, "KLBits", s.KLBits, fresh.KLBits, 0)
	checkCurve(t, "ModelEntropy", s.PerPosition.ModelEntropy, fresh.PerPosition.ModelEntropy, 0)
	checkCurve(t, "Accuracy", s.PerPosition.Accuracy, fresh.PerPosition.Accuracy, 0)

	allocs := testing.AllocsPerRun(20, func() {
		_ = ScoreInto(&s, q1, p1, n, positions, classes)
	})
	if allocs != 0 {
		t.Errorf("ScoreInto with repeated sizes allocated %v times per run, want 0", allocs)
	}
	// A smaller size reuses the storage and has the right lengths.
	if err := ScoreInto(&s, q1[:2*positions*classes], p1[:2*positions*classes], 2*positions, 1, classes); err != nil {
		t.Fatal(err)
	}
	if len(s.PerPosition.TVD) != 1 {
		t.Errorf("len(TVD) = %d after shrinking, want 1", len(s.PerPosition.TVD))
	}
}

// TestScoreMatchesPrimitives checks Score's aggregates against Entropy, KL and TVD
// applied per sample on random distributions.
func TestScoreMatchesPrimitives(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, positions, classes = 16, 7, 9
	q, p := randProbs(r, n, positions, classes), randProbs(r, n, positions, classes)
	s, err := Score(q, p, n, positions, classes)
	if err != nil {
		t.Fatal(err)
	}
	mq := make([]float64, positions)
	mp := make([]float64, positions)
	var sample, kl, tv float64
	for i := range n {
		for j := range positions {
			off := (i*positions + j) * classes
			qd, pd := q[off:off+classes], p[off:off+classes]
			hq, hp := Entropy(qd), Entropy(pd)
			mq[j] += hq / n
			mp[j] += hp / n
			sample += math.Abs(hq - hp)
			kl += KL(pd, qd)
			tv += TVD(pd, qd)
		}
	}
	var pos float64
	for j := range positions {
		pos += math.Abs(mq[j] - mp[j])
	}
	m := float64(n * positions)
	checkScalar(t, "BitErrorPosition", s.BitErrorPosition, pos/positions, 1e-12)
	checkScalar(t, "BitErrorSample", s.BitErrorSample, sample/m, 1e-12)
	checkScalar(t, "KLBits", s.KLBits, kl/m, 1e-12)
	checkScalar(t, "TVD", s.TVD, tv/m, 1e-12)
	checkCurve(t, "ModelEntropy", s.PerPosition.ModelEntropy, mq, 1e-12)
	checkCurve(t, "BayesEntropy", s.PerPosition.BayesEntropy, mp, 1e-12)
}

func TestScoreJSON(t *testing.T) {
	s, err := Score([]float64{0.5, 0.5}, []float64{1, 0}, 1, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"bit_error_position":1`, `"bit_error_sample":1`, `"kl_bits":1`,
		`"tvd":0.5`, `"accuracy":1`, `"per_position":{"model_entropy_bits":[1]`, `"bayes_entropy_bits":[0]`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON %s does not contain %s", b, key)
		}
	}
}

func BenchmarkScore(b *testing.B) {
	for _, sz := range []struct{ n, positions, classes int }{
		{1024, 19, 20},
		{1024, 20, 5},
	} {
		r := rand.New(rand.NewPCG(9, 10))
		q := randProbs(r, sz.n, sz.positions, sz.classes)
		p := randProbs(r, sz.n, sz.positions, sz.classes)
		name := fmt.Sprintf("n=%d,P=%d,C=%d", sz.n, sz.positions, sz.classes)
		b.Run(name+"/Score", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Score(q, p, sz.n, sz.positions, sz.classes); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/ScoreInto", func(b *testing.B) {
			b.ReportAllocs()
			var s Scores
			for b.Loop() {
				if err := ScoreInto(&s, q, p, sz.n, sz.positions, sz.classes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
