package tui

import (
	"math"
	"sort"

	"windtunnel/sessions"
)

// overlayMetric is the quantity the comparison plots; m cycles through them.
type overlayMetric int

// The metrics of the comparison, in the order m cycles through them.
const (
	metricA  overlayMetric = iota // bit error (a), per position
	metricB                       // bit error (b), per sample
	metricKL                      // KL(p*‖q)
	numMetrics
)

// title names the metric in the chart's title.
func (m overlayMetric) title() string {
	switch m {
	case metricB:
		return "bit error (b)"
	case metricKL:
		return "KL(p*‖q)"
	}
	return "bit error (a)"
}

// short names the metric beside a value in the legend.
func (m overlayMetric) short() string {
	switch m {
	case metricB:
		return "(b)"
	case metricKL:
		return "KL"
	}
	return "(a)"
}

// value is the metric of one evaluation, in bits.
func (m overlayMetric) value(e *sessions.Eval) float64 {
	switch m {
	case metricB:
		return e.BitErrorSample
	case metricKL:
		return e.KLBits
	}
	return e.BitErrorPosition
}

// stepValue is one evaluation's metric.
type stepValue struct {
	step int
	v    float64
}

// curveOf is the metric of each evaluation, in order.
func curveOf(recs []sessions.Record, m overlayMetric) []stepValue {
	c := make([]stepValue, 0, len(recs))
	for _, r := range recs {
		if r.Eval != nil {
			c = append(c, stepValue{r.Step, m.value(r.Eval)})
		}
	}
	return c
}

// lastAt returns the newest point of c at or before step.
func lastAt[T any](c []T, stepOf func(T) int, step int) (T, bool) {
	i := sort.Search(len(c), func(i int) bool { return stepOf(c[i]) > step })
	if i == 0 {
		var zero T
		return zero, false
	}
	return c[i-1], true
}

// curveAt is c at step x, linearly interpolated between its two neighbouring evaluations;
// false before its first or after its last evaluation, or next to a non-finite value.
func curveAt(c []stepValue, x float64) (float64, bool) {
	n := len(c)
	if n == 0 || x < float64(c[0].step) || x > float64(c[n-1].step) {
		return 0, false
	}
	i := sort.Search(n, func(i int) bool { return float64(c[i].step) >= x })
	var v float64
	if float64(c[i].step) == x {
		v = c[i].v
	} else {
		a, b := c[i-1], c[i]
		t := (x - float64(a.step)) / float64(b.step-a.step)
		v = a.v + t*(b.v-a.v)
	}
	return v, finiteValue(v)
}

// finiteValue reports whether v is neither NaN nor infinite.
func finiteValue(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// bandPoint is a seed group at one step: the mean over the n seeds that have a value there
// and their standard deviation.
type bandPoint struct {
	step     int
	mean, sd float64
	n        int
}

// alignBand is the mean ± sd of several seeds' curves. Seeds' evaluation steps may differ
// slightly (a changed cadence, a resumed run, a run still going), so the band is taken on
// the union of their steps with each seed's value there linearly interpolated between its
// two neighbouring evaluations (not carried forward: a carried value would flatten the
// curve between evaluations). A seed adds nothing before its first or after its last
// evaluation: there is no extrapolation, and a seed that stopped early or is still behind
// leaves the band, which bandPoint.n shows. Steps no seed covers are left out.
func alignBand(curves [][]stepValue) []bandPoint {
	var steps []int
	for _, c := range curves {
		for _, p := range c {
			steps = append(steps, p.step)
		}
	}
	sort.Ints(steps)
	var out []bandPoint
	vs := make([]float64, 0, len(curves))
	for i, s := range steps {
		if i > 0 && steps[i-1] == s {
			continue
		}
		vs = vs[:0]
		for _, c := range curves {
			if v, ok := curveAt(c, float64(s)); ok {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			continue
		}
		m, sd := meanSD(vs)
		out = append(out, bandPoint{step: s, mean: m, sd: sd, n: len(vs)})
	}
	return out
}

// meanSD returns the mean and the sample standard deviation (n−1 in the denominator; 0 for
// a single value) of vs.
func meanSD(vs []float64) (float64, float64) {
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

// bandAt is the band's lower and upper edge (mean ∓ sd) at step x, linearly interpolated
// between its points; false outside them.
func bandAt(b []bandPoint, x float64) (lo, hi float64, ok bool) {
	n := len(b)
	if n == 0 || x < float64(b[0].step) || x > float64(b[n-1].step) {
		return 0, 0, false
	}
	i := sort.Search(n, func(i int) bool { return float64(b[i].step) >= x })
	p := b[i]
	if float64(p.step) == x || i == 0 {
		return p.mean - p.sd, p.mean + p.sd, true
	}
	a := b[i-1]
	t := (x - float64(a.step)) / float64(p.step-a.step)
	m, sd := a.mean+t*(p.mean-a.mean), a.sd+t*(p.sd-a.sd)
	return m - sd, m + sd, true
}

// sortedUnique sorts xs and drops repeats, in place.
func sortedUnique(xs []int) []int {
	sort.Ints(xs)
	out := xs[:0]
	for _, x := range xs {
		if len(out) == 0 || x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}
