package tunnels

import (
	"math"
	"strings"
	"testing"
)

// second returns the error of a constructor call.
func second[T any](_ T, err error) error { return err }

// must returns v, panicking on an error (test setup only).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// closeSlices fails t when a and b differ by more than tol anywhere.
func closeSlices(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for j := range got {
		if math.Abs(got[j]-want[j]) > tol {
			t.Fatalf("%s: [%d] = %.17g, want %.17g (tol %g)\n got %v\nwant %v", what, j, got[j], want[j], tol, got, want)
		}
	}
}

// entropyBitsRef is the entropy of p in bits, computed independently of the tunnels (which use gonum's stat.Entropy).
func entropyBitsRef(p []float64) float64 {
	h := 0.0
	for _, x := range p {
		if x > 0 {
			h += x * math.Log(1/x)
		}
	}
	return h / math.Ln2
}

// normalise divides p by its sum in place.
func normalise(p []float64) {
	s := 0.0
	for _, x := range p {
		s += x
	}
	for j := range p {
		p[j] /= s
	}
}
