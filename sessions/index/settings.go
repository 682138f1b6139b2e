package index

import (
	"cmp"
	"path/filepath"
	"strconv"
)

// Settings are the flags a sweep (or a compare) varies and the value each of its sessions
// was given: what sweep status --settings and the run picker show beside the metrics,
// handed over as plain data by whoever reads the sweep's manifest (lab/sweep).
type Settings struct {
	// Flags are the swept flags, in the grid's order.
	Flags []string
	// Values are each session's values by flag, keyed by the session's absolute path.
	Values map[string]map[string]string
}

// Of is the value the run's session was given for flag; "" when none (a session the sweep
// did not make, or a flag its point does not set).
func (s Settings) Of(r Run, flag string) string {
	if len(s.Values) == 0 {
		return ""
	}
	abs, err := filepath.Abs(r.Path)
	if err != nil {
		return ""
	}
	return s.Values[abs][flag]
}

// CompareSetting orders two values of a swept flag: as numbers where both are numbers, else
// as text; a missing value ("") after a present one (the caller keeps that order whatever
// its direction: MissingLast).
func CompareSetting(a, b string) int {
	if c, ok := MissingLast(a != "", b != ""); ok {
		return c
	}
	fa, ea := strconv.ParseFloat(a, 64)
	fb, eb := strconv.ParseFloat(b, 64)
	if ea == nil && eb == nil {
		return cmp.Compare(fa, fb)
	}
	return cmp.Compare(a, b)
}

// MissingLast orders a value that is missing after one that is present (whatever the
// direction of the sort); ok is false when both are present and the values decide.
func MissingLast(hasA, hasB bool) (c int, ok bool) {
	if hasA && hasB {
		return 0, false
	}
	return cmp.Compare(btoi(!hasA), btoi(!hasB)), true
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
