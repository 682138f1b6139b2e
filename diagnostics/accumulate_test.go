package diagnostics

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestAccumulatorMatchesScore: sequences added one at a time score bit for bit as Score
// scores them at once.
func TestAccumulatorMatchesScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dist := func(c int) []float64 {
		d := make([]float64, c)
		var z float64
		for i := range d {
			d[i] = rng.Float64() * rng.Float64()
			z += d[i]
		}
		for i := range d {
			d[i] /= z
		}
		return d
	}
	for _, c := range []struct{ n, positions, classes int }{{1, 1, 2}, {7, 3, 5}, {200, 8, 8}} {
		var q, p []float64
		for range c.n * c.positions {
			q = append(q, dist(c.classes)...)
			p = append(p, dist(c.classes)...)
		}
		want, err := Score(q, p, c.n, c.positions, c.classes)
		if err != nil {
			t.Fatal(err)
		}
		a, err := NewAccumulator(c.positions, c.classes)
		if err != nil {
			t.Fatal(err)
		}
		stride := c.positions * c.classes
		for i := range c.n {
			if err := a.Add(q[i*stride:(i+1)*stride], p[i*stride:(i+1)*stride]); err != nil {
				t.Fatal(err)
			}
		}
		got, err := a.Scores()
		if err != nil || a.Len() != c.n || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: accumulated %+v (%v, %d sequences), Score %+v", c, got, err, a.Len(), want)
		}
	}
	a, _ := NewAccumulator(2, 2)
	if _, err := a.Scores(); err == nil {
		t.Error("scores of no sequences")
	}
	if err := a.Add(make([]float64, 3), make([]float64, 4)); err == nil {
		t.Error("a sequence of the wrong size added")
	}
}
