//go:build !unix

package sessions

// WriterPid is 0 where sessions take no lock (see writerpid_unix.go).
func WriterPid(path string) int { return 0 }
