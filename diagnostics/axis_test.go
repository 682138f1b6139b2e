package diagnostics

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestStandardize(t *testing.T) {
	x := []float64{1, 5, 7, 3, 2, 7, 5, 5, 7} // 3×3: a varying column, a varying one, a constant one
	s := Standardize(x, 3, 3)
	for j := range 3 {
		var m, v float64
		for i := range 3 {
			m += s[i*3+j]
		}
		m /= 3
		for i := range 3 {
			v += (s[i*3+j] - m) * (s[i*3+j] - m)
		}
		v /= 3
		want := 1.0
		if j == 2 {
			want = 0
		}
		if math.Abs(m) > 1e-12 || math.Abs(v-want) > 1e-12 {
			t.Errorf("column %d: mean %g variance %g, want 0 and %g", j, m, v, want)
		}
	}
	// Column 0 is 1, 3, 5: z = −√1.5, 0, √1.5.
	if math.Abs(s[0]+math.Sqrt(1.5)) > 1e-12 {
		t.Errorf("z(1) = %g, want %g", s[0], -math.Sqrt(1.5))
	}
	if Standardize(x, 2, 3) != nil {
		t.Error("bad sizes: not nil")
	}
}

func TestPrincipalAxisRecoversALine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, dim = 200, 6
	dir := []float64{3, -1, 0, 2, 0, 1}
	norm := math.Sqrt(15)
	x := make([]float64, n*dim)
	for i := range n {
		s := r.NormFloat64() * 5
		for j := range dim {
			x[i*dim+j] = 10 + s*dir[j]/norm + 0.05*r.NormFloat64()
		}
	}
	axis, sd, err := PrincipalAxis(x, n, dim)
	if err != nil {
		t.Fatal(err)
	}
	var dot float64
	for j := range dim {
		dot += axis[j] * dir[j] / norm
	}
	if math.Abs(math.Abs(dot)-1) > 1e-3 {
		t.Errorf("|cos(axis, line)| = %g, want ≈ 1", math.Abs(dot))
	}
	if math.Abs(sd-5) > 0.6 {
		t.Errorf("sd along the axis %g, want ≈ 5", sd)
	}
	// The projections' spread is that sd.
	p := Project(x, n, dim, axis)
	var m, v float64
	for _, a := range p {
		m += a
	}
	m /= n
	for _, a := range p {
		v += (a - m) * (a - m)
	}
	if math.Abs(math.Sqrt(v/n)-sd) > 1e-9 {
		t.Errorf("projection sd %g, PrincipalAxis says %g", math.Sqrt(v/n), sd)
	}
	if _, _, err := PrincipalAxis(make([]float64, 12), 2, 6); err == nil {
		t.Error("identical rows: no error")
	}
	if _, _, err := PrincipalAxis([]float64{1, math.NaN()}, 2, 1); err == nil {
		t.Error("NaN: no error")
	}
}

func TestTrendOf(t *testing.T) {
	tr := TrendOf([]float64{4, 3, 3.5, 1})
	if tr.First != 4 || tr.Last != 1 || tr.Drop != 0.75 {
		t.Errorf("%+v", tr)
	}
	// Ranks of (4, 3, 3.5, 1) are (4, 2, 3, 1) against (1, 2, 3, 4): d = (3, 0, 0, −3), ρ = 1 − 6·18/60 = −0.8.
	if math.Abs(tr.Spearman+0.8) > 1e-12 {
		t.Errorf("Spearman %g, want −0.8", tr.Spearman)
	}
	if !math.IsNaN(TrendOf([]float64{1}).Drop) {
		t.Error("one layer: not NaN")
	}
}
