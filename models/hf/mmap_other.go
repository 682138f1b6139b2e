//go:build !unix

package hf

import (
	"fmt"
	"io"
	"os"

	"windtunnel/backends/untrusted"
)

// mapFile reads the regular file at path into memory (this platform has no syscall.Mmap;
// anything else is refused before it is opened) and returns its bytes, no file (the copy
// cannot change) and a no-op unmap.
func mapFile(path string) ([]byte, *os.File, func() error, error) {
	f, size, err := untrusted.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("hf: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, size))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("hf: read %s: %w", path, err)
	}
	return b, nil, func() error { return nil }, nil
}
