package ticks

import (
	"math"
	"strconv"
)

// Tick is one tick of an axis: its value, and its label ("" for a minor tick).
type Tick struct {
	Value float64
	Label string
}

// Linear is the ticks of a linear axis over [lo, hi]: labels at round values 1, 2 or 5 ×
// 10^k apart, the spacing whose count of labels is nearest n, in ascending order, then the
// unlabelled minor ticks between them. An integer axis (steps, positions, layers) gets a
// spacing of at least 1 and integer minor ticks only. A range of one value gets one label.
func Linear(lo, hi float64, n int, integer bool) []Tick {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	if hi <= lo {
		return []Tick{{Value: lo, Label: Format(lo, 0, integer)}}
	}
	step, minor := Step(hi-lo, max(n, 2), integer)
	var out []Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi*(1+1e-12)+1e-12; k++ {
		v := k * step
		out = append(out, Tick{Value: v, Label: Format(v, step, integer)})
	}
	if minor > 0 {
		per := math.Round(step / minor)
		for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi; k++ {
			if math.Mod(k, per) != 0 {
				out = append(out, Tick{Value: k * minor})
			}
		}
	}
	return out
}

// Step is the label spacing (1, 2 or 5 × 10^k, at least 1 on an integer axis) whose number
// of labels over span is nearest n, and the minor spacing under it (0: none).
func Step(span float64, n int, integer bool) (step, minor float64) {
	mag := math.Pow(10, math.Floor(math.Log10(span/float64(n))))
	best, bestErr := 0.0, math.Inf(1)
	for _, m := range []float64{0.5, 1, 2, 5, 10, 20} {
		s := m * mag
		if integer && s < 1 {
			continue
		}
		if e := math.Abs(span/s - float64(n)); e < bestErr-1e-9 {
			best, bestErr = s, e
		}
	}
	if best == 0 {
		best = 1
	}
	mant := best / math.Pow(10, math.Floor(math.Log10(best)+1e-9))
	switch {
	case math.Abs(mant-2) < 1e-6:
		minor = best / 2
	default: // 1 and 5
		minor = best / 5
	}
	if integer && (minor < 1 || math.Abs(minor-math.Round(minor)) > 1e-9) {
		minor = 0
	}
	return best, minor
}

// Format writes v with as many decimals as step needs (none on an integer axis), and in
// exponent form beyond 10⁶ and below 10⁻⁴.
func Format(v, step float64, integer bool) string {
	if integer {
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	if math.Abs(v) < step*1e-9 {
		v = 0
	}
	dec := 0
	if step > 0 {
		dec = max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	}
	if a := math.Abs(v); a != 0 && (a >= 1e6 || a < 1e-4) {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// Log is the ticks of a log axis over [lo, hi] (lo > 0), with enough labels to read it over
// any range: at every decade where the range spans many (every few over more than eight),
// at 1, 2 and 5 × 10^k over a few, 1, 2, 3 and 5 over about one, and every integer multiple
// over less; with unlabelled minor ticks at the integer multiples of each decade. A range
// too narrow for three such labels spread over it (0.8 to 1.6) gets Linear's labels. nil
// for a range that is not positive.
func Log(lo, hi float64) []Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return nil
	}
	decades := math.Log10(hi / lo)
	sets := [][]float64{{1}, {1, 2, 5}, {1, 2, 3, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}
	start := 0
	switch {
	case decades <= 1.2:
		start = 2
	case decades <= 3.5:
		start = 1
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	every := 1 // label every decade, or every few over a wide range
	if decades > 8 {
		every = int(math.Ceil(decades / 8))
	}
	need := 2 // labels at least, 3 over a range of a few decades or less
	if decades <= 3.5 {
		need = 3
	}
	for si := start; si < len(sets); si++ {
		var out []Tick
		labelled := 0
		for e := e0; e <= e1; e++ {
			for m := 1; m <= 9; m++ {
				v := decadeValue(float64(m), e)
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				tk := Tick{Value: v}
				if in(float64(m), sets[si]) && e%every == 0 {
					tk.Label = Format(v, decadeValue(1, e), false)
					labelled++
				} else if decades > 6 && m != 1 {
					continue // minor ticks would crowd a wide range
				}
				out = append(out, tk)
			}
		}
		if labelled >= need && spread(out, lo, hi) {
			return out
		}
	}
	// Too narrow for the multiples of a decade (1.05 to 1.3, 0.8 to 1.6): round linear
	// values, which read as well on a log axis.
	return Linear(lo, hi, 6, false)
}

// spread reports whether the labelled ticks cover [lo, hi] on a log scale: no stretch
// between two of them, or between one and an end, longer than half the range.
func spread(ts []Tick, lo, hi float64) bool {
	prev, worst := math.Log10(lo), 0.0
	for _, t := range ts { // in ascending order
		if t.Label != "" {
			worst = math.Max(worst, math.Log10(t.Value)-prev)
			prev = math.Log10(t.Value)
		}
	}
	worst = math.Max(worst, math.Log10(hi)-prev)
	return worst <= math.Log10(hi/lo)/2
}

// decadeValue is m × 10^e computed without the rounding of a multiplication by 10^e for
// negative e (0.1 × 3 is not 0.3).
func decadeValue(m float64, e int) float64 {
	if e < 0 {
		return m / math.Pow(10, float64(-e))
	}
	return m * math.Pow(10, float64(e))
}

// in reports whether v is one of vs.
func in(v float64, vs []float64) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// Labelled is the labelled ticks of ts, in order.
func Labelled(ts []Tick) []Tick {
	var out []Tick
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t)
		}
	}
	return out
}
