package derived

import (
	"math"
	"sort"
)

// StepValue is a run's value at a training step (or any integer x, such as a position).
type StepValue struct {
	Step int
	V    float64
}

// BandPoint is the seeds of one configuration at one step: the mean over the N seeds that
// have a value there, their sample standard deviation, and the band's edges Lo and Hi, mean
// ∓ sd clipped to the seeds' own range (across a plateau's escape the sd exceeds the mean,
// and mean − sd < 0 has no place on a log axis).
type BandPoint struct {
	Step         int
	Mean, SD     float64
	Lo, Hi       float64
	N            int
	Lowest, High float64 // the seeds' smallest and largest value there
}

// SeedBand is the mean ± sd band of several seeds' curves, each in step order. Seeds'
// evaluation steps may differ (a changed cadence, a resumed run, a run still going), so the
// band is taken on the union of their steps, each seed's value there linearly interpolated
// between its two neighbouring points (not carried forward, which would flatten the curve).
// A seed adds nothing before its first or after its last point (no extrapolation) nor next
// to a non-finite value; steps no seed covers are left out.
func SeedBand(curves [][]StepValue) []BandPoint {
	var steps []int
	for _, c := range curves {
		for _, p := range c {
			steps = append(steps, p.Step)
		}
	}
	sort.Ints(steps)
	var out []BandPoint
	vs := make([]float64, 0, len(curves))
	for i, s := range steps {
		if i > 0 && steps[i-1] == s {
			continue
		}
		vs = vs[:0]
		for _, c := range curves {
			if v, ok := CurveAt(c, float64(s)); ok {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			continue
		}
		m, sd := MeanSD(vs)
		lo, hi := vs[0], vs[0]
		for _, v := range vs {
			lo, hi = min(lo, v), max(hi, v)
		}
		out = append(out, BandPoint{Step: s, Mean: m, SD: sd, Lo: max(m-sd, lo), Hi: min(m+sd, hi), N: len(vs), Lowest: lo, High: hi})
	}
	return out
}

// CurveAt is c (in step order) at x, linearly interpolated between its two neighbouring
// points; false before its first or after its last point, or next to a non-finite value.
func CurveAt(c []StepValue, x float64) (float64, bool) {
	n := len(c)
	if n == 0 || x < float64(c[0].Step) || x > float64(c[n-1].Step) {
		return 0, false
	}
	i := sort.Search(n, func(i int) bool { return float64(c[i].Step) >= x })
	var v float64
	if float64(c[i].Step) == x {
		v = c[i].V
	} else {
		a, b := c[i-1], c[i]
		t := (x - float64(a.Step)) / float64(b.Step-a.Step)
		v = a.V + t*(b.V-a.V)
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

// MeanSD returns the mean and the sample standard deviation (n−1 in the denominator; 0 for
// a single value) of vs; NaN, NaN for none.
func MeanSD(vs []float64) (float64, float64) {
	if len(vs) == 0 {
		return math.NaN(), math.NaN()
	}
	s := 0.0
	for _, v := range vs {
		s += v
	}
	m := s / float64(len(vs))
	if len(vs) == 1 {
		return m, 0
	}
	ss := 0.0
	for _, v := range vs {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(vs)-1))
}
