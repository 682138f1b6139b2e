//go:build !unix

package sessions

// fileLock is a no-op where flock(2) is not available.
type fileLock struct{}

func acquireLock(path string) (*fileLock, error) { return &fileLock{}, nil }

func (l *fileLock) release() {}
