package diagnostics

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
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
