package overlay

import (
	"fmt"
	"math"
	"sort"
	"time"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// scalarPoints is the most records of a run the comparison reads for its loss curve and
// its wall-clock times: more than a chart has columns.
const scalarPoints = 600

// records is run i's records the metric m is read from: every record's scalars for the
// loss, the evaluations otherwise.
func (o *Model) records(i int, m overlayMetric) []sessions.Record {
	if m == metricLoss {
		return o.scalars[i]
	}
	return o.curves[i]
}

// wallAxis reports whether x is the wall-clock time: asked for (x) and recorded (sessions
// written without wall times keep the step axis, and the title says why).
func (o *Model) wallAxis() bool {
	if !o.wall {
		return false
	}
	for _, rs := range o.scalars {
		if len(rs) > 0 && rs[len(rs)-1].WallS > 0 {
			return true
		}
	}
	return false
}

// wallAt is run i's wall-clock time in seconds at step, interpolated between its records
// (held at the ends); NaN when it has none.
func (o *Model) wallAt(i int, step float64) float64 {
	rs := o.scalars[i]
	if len(rs) == 0 {
		return math.NaN()
	}
	k := sort.Search(len(rs), func(k int) bool { return float64(rs[k].Step) >= step })
	switch {
	case k == 0:
		return rs[0].WallS
	case k == len(rs):
		return rs[len(rs)-1].WallS
	}
	a, b := rs[k-1], rs[k]
	if b.Step == a.Step {
		return b.WallS
	}
	t := (step - float64(a.Step)) / float64(b.Step-a.Step)
	return a.WallS + t*(b.WallS-a.WallS)
}

// xOf is where series j draws step s on the x axis: the step, or on the wall-clock axis
// the mean over its runs of their wall time at s, in the axis' unit.
func (o *Model) xOf(j int, s float64) float64 {
	if !o.wallAxis() {
		return s
	}
	sum, n := 0.0, 0
	for _, i := range o.groups[j].members {
		if w := o.wallAt(i, s); !math.IsNaN(w) {
			sum, n = sum+w, n+1
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n) / o.wallUnit().Seconds()
}

// runX is where run i draws step s: the step, or its wall time in the axis' unit.
func (o *Model) runX(i int, s float64) float64 {
	if !o.wallAxis() {
		return s
	}
	return o.wallAt(i, s) / o.wallUnit().Seconds()
}

// wallUnit is the wall-clock axis' unit: seconds, minutes or hours, whichever the longest
// run's time is written in with a few digits.
func (o *Model) wallUnit() time.Duration {
	longest := 0.0
	for _, rs := range o.scalars {
		if len(rs) > 0 {
			longest = math.Max(longest, rs[len(rs)-1].WallS)
		}
	}
	switch {
	case longest >= 3*3600:
		return time.Hour
	case longest >= 300:
		return time.Minute
	}
	return time.Second
}

// xTitle is the x axis' title.
func (o *Model) xTitle() string {
	if !o.wallAxis() {
		return xAxisTitle
	}
	switch o.wallUnit() {
	case time.Hour:
		return "wall h"
	case time.Minute:
		return "wall min"
	}
	return "wall s"
}

// xBand is a seed group's band at the x positions it is drawn at.
type xBand struct{ x, lo, hi []float64 }

// bandX places band b of series j on the x axis (xOf).
func (o *Model) bandX(j int, b []bandPoint) xBand {
	out := xBand{x: make([]float64, len(b)), lo: make([]float64, len(b)), hi: make([]float64, len(b))}
	for k, p := range b {
		out.x[k], out.lo[k], out.hi[k] = o.xOf(j, float64(p.Step)), p.Lo, p.Hi
	}
	return out
}

// at is the band's edges at x, interpolated between its points; false outside them.
func (b xBand) at(x float64) (lo, hi float64, ok bool) {
	n := len(b.x)
	if n == 0 || !(x >= b.x[0]) || !(x <= b.x[n-1]) {
		return 0, 0, false
	}
	k := sort.SearchFloat64s(b.x, x)
	if k == 0 || b.x[k] == x {
		return b.lo[k], b.hi[k], true
	}
	t := (x - b.x[k-1]) / (b.x[k] - b.x[k-1])
	return b.lo[k-1] + t*(b.lo[k]-b.lo[k-1]), b.hi[k-1] + t*(b.hi[k]-b.hi[k-1]), true
}

// smoothed is the values of curve c smoothed by the comparison's moving average (+ and −;
// none by default), as its line is drawn.
func (o *Model) smoothed(c []stepValue) []stepValue {
	if o.smooth == 0 {
		return c
	}
	ys := make([]float64, len(c))
	for k, p := range c {
		ys[k] = p.V
	}
	ys = look.EMA(ys, look.Smoothings[o.smooth])
	out := make([]stepValue, len(c))
	for k, p := range c {
		out[k] = stepValue{Step: p.Step, V: ys[k]}
	}
	return out
}

// valueAt is run i's metric m from its newest record at or before step that has it.
func (o *Model) valueAt(i int, m overlayMetric, step int) (float64, bool) {
	c := curveOf(o.records(i, m), m)
	p, ok := lastAt(c, func(p stepValue) int { return p.Step }, step)
	return p.V, ok
}

// wallText is run 0's wall time at step, for the axis line on the wall-clock axis.
func (o *Model) wallText(step int) string {
	if len(o.groups) == 0 {
		return ""
	}
	w := o.wallAt(o.groups[0].members[0], float64(step))
	if math.IsNaN(w) {
		return ""
	}
	return fmt.Sprintf(" (%s)", time.Duration(w*float64(time.Second)).Round(time.Second))
}
