package runconfig

import "strings"

// editDistance is the optimal-string-alignment distance between a and b, in runes: the
// insertions, deletions, substitutions and swaps of two neighbouring letters that turn one
// into the other ("dri" is one swap from "dir", "rnu" from "run").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j]; three rows suffice.
	rows := [3][]int{make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		pp, prev, cur := rows[(i+1)%3], rows[(i+2)%3], rows[i%3]
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
	}
	return rows[len(ra)%3][len(rb)]
}

// Closest returns the candidate closest to name (compared case-insensitively): within an
// edit distance of 2 (1 for names of 2 or 3 letters, 0 for one), or the only candidate name
// begins; "" when none is close.
func Closest(name string, candidates []string) string {
	low := strings.ToLower(name)
	best, bestD := "", 0
	limit := 2
	switch n := len([]rune(name)); {
	case n <= 1:
		limit = 0
	case n <= 3:
		limit = 1
	}
	var prefixed []string
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == low {
			return c
		}
		if d := editDistance(low, lc); d <= limit && (best == "" || d < bestD) {
			best, bestD = c, d
		}
		if low != "" && strings.HasPrefix(lc, low) {
			prefixed = append(prefixed, c)
		}
	}
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	return best
}
