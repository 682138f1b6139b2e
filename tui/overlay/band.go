package overlay

import (
	"math"
	"sort"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
)

// overlayMetric is the quantity the comparison plots; m cycles through them.
type overlayMetric int

// The metrics of the comparison, in the order m cycles through them.
const (
	metricA    overlayMetric = iota // bit error (a), per position
	metricB                         // bit error (b), per sample
	metricKL                        // KL(p*‖q)
	metricLoss                      // the training loss, every record's
	metricAll                       // the three bit-error metrics, a chart each
	numMetrics
)

// shown is the metrics drawn: the one, or all three.
func (m overlayMetric) shown() []overlayMetric {
	if m == metricAll {
		return []overlayMetric{metricA, metricB, metricKL}
	}
	return []overlayMetric{m}
}

// title names the metric in the chart's title.
func (m overlayMetric) title() string {
	switch m {
	case metricB:
		return "bit error (b)"
	case metricKL:
		return "KL(p*‖q)"
	case metricLoss:
		return "training loss"
	case metricAll:
		return "bit error (a), (b) and KL"
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
	case metricLoss:
		return "loss"
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
type stepValue = derived.StepValue

// curveOf is the metric of each record that has it (the loss every record, the others an
// evaluation), in order.
func curveOf(recs []sessions.Record, m overlayMetric) []stepValue {
	c := make([]stepValue, 0, len(recs))
	for _, r := range recs {
		if v, ok := m.of(r); ok {
			c = append(c, stepValue{Step: r.Step, V: v})
		}
	}
	return c
}

// of is the metric of record r, and whether r has it.
func (m overlayMetric) of(r sessions.Record) (float64, bool) {
	if m == metricLoss {
		return r.Loss, true
	}
	if r.Eval == nil {
		return 0, false
	}
	return m.value(r.Eval), true
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

// finiteValue reports whether v is neither NaN nor infinite.
func finiteValue(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// bandPoint is a seed group at one step (derived.SeedBand).
type bandPoint = derived.BandPoint

// bandAt is the band's lower and upper edge (mean ∓ sd clipped to the seeds' range, as
// derived.SeedBand gives them) at step x, linearly interpolated between its points; false
// outside them.
func bandAt(b []bandPoint, x float64) (lo, hi float64, ok bool) {
	n := len(b)
	if n == 0 || x < float64(b[0].Step) || x > float64(b[n-1].Step) {
		return 0, 0, false
	}
	i := sort.Search(n, func(i int) bool { return float64(b[i].Step) >= x })
	p := b[i]
	if float64(p.Step) == x || i == 0 {
		return p.Lo, p.Hi, true
	}
	a := b[i-1]
	t := (x - float64(a.Step)) / float64(p.Step-a.Step)
	return a.Lo + t*(p.Lo-a.Lo), a.Hi + t*(p.Hi-a.Hi), true
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
