package derived

import (
	"fmt"
	"strconv"
	"strings"
)

// ReplicateKey is the identity of one experiment: its configuration's key (ConfigKey, so
// IgnoredFields aside) and its seed. Sessions with equal replicate keys trained the same thing
// from the same seed (a re-run, a copied folder): they are copies of one replicate and count
// once wherever runs are seeds. A run whose configuration could not be read (key "") is a
// replicate of its own: ReplicateKey returns "" and Replicates keeps it apart.
func ReplicateKey(key string, seed uint64) string {
	if key == "" {
		return ""
	}
	return key + "\x00seed " + strconv.FormatUint(seed, 10)
}

// Replicates gathers the indices of runs (their configuration keys and seeds, in step) that
// are copies of one replicate (ReplicateKey), in the order of their first index, as
// GroupIndices does; a run with key "" is a group of its own.
func Replicates(keys []string, seeds []uint64) [][]int {
	rk := make([]string, len(keys))
	for i, k := range keys {
		rk[i] = ReplicateKey(k, seeds[i])
		if rk[i] == "" {
			rk[i] = fmt.Sprintf("\x01%d", i) // unreadable: apart from every other run
		}
	}
	return GroupIndices(rk)
}

// CopiesDisagree compares two copies of one replicate by their final evaluations (bit error
// (a) and (b), KL, accuracy) and their last step: "" when they agree exactly, else what
// differs ("bit error (a) 0.05 vs 0.07"). Copies trained alike agree bit for bit; copies
// that differ only in an ignored field (workers, BLAS) may differ in the last digits, and
// that is said too.
func CopiesDisagree(a, b RunScore) string {
	var d []string
	num := func(what string, x, y float64) {
		if x != y && !(x != x && y != y) { // NaN on both sides agrees
			d = append(d, fmt.Sprintf("%s %.6g vs %.6g", what, x, y))
		}
	}
	num("bit error (a)", a.Scores.BitErrorPosition, b.Scores.BitErrorPosition)
	num("bit error (b)", a.Scores.BitErrorSample, b.Scores.BitErrorSample)
	num("KL", a.Scores.KLBits, b.Scores.KLBits)
	num("accuracy", a.Scores.Accuracy, b.Scores.Accuracy)
	if a.Steps != b.Steps {
		d = append(d, fmt.Sprintf("last step %d vs %d", a.Steps, b.Steps))
	}
	return strings.Join(d, ", ")
}
