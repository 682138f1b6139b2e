//go:build !unix

package lab

// rlimitAS is not available here.
func rlimitAS() (uint64, bool) { return 0, false }
