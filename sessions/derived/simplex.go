package derived

import (
	"fmt"
	"math"

	"windtunnel/sessions"
)

// SimplexPurity is the k-means purity at or above which a layer's states form one cluster
// per hidden state (Paper I's Mamba figure): four points in five in their argmax state's
// cluster. Written before the primitives runs (README: Primitives).
const SimplexPurity = 0.8

// SimplexCornerLine is the mean corner distance at or below which the clusters sit at the
// simplex's corners for k states: half the way from a corner to the simplex's centre
// (½·√(1 − 1/k); 0.447 at k = 5), so each centre is nearer its corner than the centre.
func SimplexCornerLine(k int) float64 {
	if k < 2 {
		return math.NaN()
	}
	return 0.5 * math.Sqrt(1-1/float64(k))
}

// SimplexMeets reports whether a simplex measurement meets Paper I's claim: purity at least
// SimplexPurity and mean corner distance at most SimplexCornerLine(k).
func SimplexMeets(purity, cornerDist float64, k int) bool {
	return purity >= SimplexPurity && cornerDist <= SimplexCornerLine(k)
}

// SimplexRule is the criterion in words: "k-means purity ≥ 0.8 and mean corner distance ≤
// 0.447 (k = 5)".
func SimplexRule(k int) string {
	return fmt.Sprintf("k-means purity ≥ %g and mean corner distance ≤ %.3f (k = %d)", SimplexPurity, SimplexCornerLine(k), k)
}

// simplexValues pools one field of the snapshots' simplex measurement (get returns nil when
// a snapshot has none) into its States and a Stat per number, with the steps of the
// snapshots used; ok is false when none has one.
func simplexValues(snaps []*sessions.Snapshot, steps []int, get func(*sessions.Snapshot) *sessions.Simplex) (k int, purity, r2, corner Stat, used []int, ok bool) {
	var p, r, d []float64
	for i, sn := range snaps {
		if sn == nil || get(sn) == nil {
			continue
		}
		s := get(sn)
		k = s.States
		p, r, d = append(p, float64(s.Purity)), append(r, float64(s.R2)), append(d, float64(s.MeanCornerDist))
		used = append(used, steps[i])
	}
	if len(p) == 0 {
		return 0, Stat{}, Stat{}, Stat{}, nil, false
	}
	return k, StatOf(p), StatOf(r), StatOf(d), used, true
}
