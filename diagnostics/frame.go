package diagnostics

import "math"

// AttentionDrift returns 1 − the mean Pearson correlation between corresponding attention rows of a and b, each rowLen long.
//
// a and b hold the same rows (whole rows, zeros beyond the causal limit
// included) from two snapshots. Rows where the correlation is undefined
// (either side constant, such as a row with a single valid key, or NaN) are
// skipped; if none remain the drift is 0. Identical patterns give 0, the range
// is [0, 2]. Lengths that differ or are not a multiple of a positive rowLen
// give NaN.
func AttentionDrift(a, b []float64, rowLen int) float64 {
	if rowLen <= 0 || len(a) != len(b) || len(a)%rowLen != 0 {
		return math.NaN()
	}
	var sum float64
	var rows int
	for off := 0; off < len(a); off += rowLen {
		r := Pearson(a[off:off+rowLen], b[off:off+rowLen])
		if r != r {
			continue
		}
		sum += r
		rows++
	}
	if rows == 0 {
		return 0
	}
	return 1 - sum/float64(rows)
}

// SettleStep returns the first step from which series stays within frac of its total range
// of its final value, e.g. where a frame or precision curve settled, and whether it settled
// before its final entry.
//
// The range and the final value are taken over finite entries; non-finite entries neither
// break nor start the settled stretch; a negative or NaN frac counts as 0. A constant series
// settles at its first finite entry. A series whose stretch starts at its final finite entry
// (a single point, or one that moved at the last) has not settled: it returns that entry's
// step and false. It returns −1 and false for empty input, lengths that differ, or a series
// with no finite entry.
func SettleStep(steps []int, series []float64, frac float64) (int, bool) {
	if len(steps) == 0 || len(steps) != len(series) {
		return -1, false
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	last := -1
	for i, x := range series {
		if finite(x) {
			lo, hi = min(lo, x), max(hi, x)
			last = i
		}
	}
	if last < 0 {
		return -1, false
	}
	if !(frac > 0) { // negative or NaN fraction: stay exactly at the final value
		frac = 0
	}
	final, band := series[last], frac*(hi-lo)
	start := 0
	for i := last; i >= 0; i-- {
		if x := series[i]; finite(x) && math.Abs(x-final) > band {
			start = i + 1
			break
		}
	}
	for !finite(series[start]) {
		start++
	}
	return steps[start], start < last
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool {
	return !math.IsNaN(x) && !math.IsInf(x, 0)
}
