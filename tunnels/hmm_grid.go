package tunnels

import (
	"math"
	"math/rand/v2"
)

// Grid of the HMM's probabilities: integer hundredths, every entry at least gridFloor.
const (
	gridTotal = 100 // hundredths in a row
	gridFloor = 5   // 0.05, the smallest entry
)

// gridRow draws a row ~ Dirichlet(1), floors it at 0.05, renormalises it and puts it on the
// 0.01 grid, writing integer hundredths that sum to exactly 100 with every entry ≥ 5 into h.
// len(h) must be at most 20 so that the floor is feasible.
func gridRow(r *rand.Rand, h []int) {
	n := len(h)
	var p, rem [MaxStates]float64
	// Dirichlet(1) as normalised standard exponentials.
	sum := 0.0
	for j := range n {
		p[j] = r.ExpFloat64()
		sum += p[j]
	}
	sum2 := 0.0
	for j := range n {
		p[j] = max(p[j]/sum, 0.05)
		sum2 += p[j]
	}
	// Largest-remainder rounding to hundredths. The explicit float64 conversions forbid
	// fused multiply-adds so every machine rounds alike.
	total := 0
	for j := range n {
		t := float64(p[j] / sum2 * gridTotal)
		f := math.Floor(t)
		h[j] = int(f)
		rem[j] = float64(t - f)
		total += h[j]
	}
	for total < gridTotal {
		best := 0
		for j := 1; j < n; j++ {
			if rem[j] > rem[best] {
				best = j
			}
		}
		h[best]++
		rem[best] = -1
		total++
	}
	for total > gridTotal { // only from floating-point excess; take from the largest
		h[argmaxInt(h)]--
		total--
	}
	// Repair: the renormalised floor can fall just below 0.05; move hundredths from the
	// largest entries until every entry is at least 5 (feasible since 5n ≤ 100).
	for j := range n {
		for h[j] < gridFloor {
			h[argmaxInt(h)]--
			h[j]++
		}
	}
}

// argmaxInt returns the index of the first largest element of h.
func argmaxInt(h []int) int {
	best := 0
	for j := 1; j < len(h); j++ {
		if h[j] > h[best] {
			best = j
		}
	}
	return best
}

// sampleGrid draws an index with probability h[j]/100 from a gridded row.
func sampleGrid(r *rand.Rand, h []int) int {
	u := r.IntN(gridTotal)
	for j, x := range h {
		if u < x {
			return j
		}
		u -= x
	}
	return len(h) - 1 // unreachable: the row sums to 100
}
