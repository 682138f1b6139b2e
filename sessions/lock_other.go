//go:build !unix

package sessions

// fileLock is a no-op where flock(2) is not available.
type fileLock struct{}

func acquireLock(path string) (*fileLock, error) { return &fileLock{}, nil }

func (l *fileLock) release() {}

// LockHolder is empty where sessions take no lock: nobody is known to hold one.
func LockHolder(path string) Holder { return Holder{} }
