//go:build !unix

package hf

import (
	"fmt"
	"os"
)

// mapFile reads the file at path into memory (this platform has no syscall.Mmap) and
// returns its bytes and a no-op unmap.
func mapFile(path string) ([]byte, func() error, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("hf: stat %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("hf: %s is not a regular file", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("hf: read %s: %w", path, err)
	}
	return b, func() error { return nil }, nil
}
