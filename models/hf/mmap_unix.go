//go:build unix

package hf

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the file at path read-only and returns its bytes and the function that
// unmaps it. An empty file maps to an empty slice.
func mapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("hf: open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("hf: stat %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("hf: %s is not a regular file", path)
	}
	size := st.Size()
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	if size != int64(int(size)) {
		return nil, nil, fmt.Errorf("hf: %s: %d bytes do not fit in this machine's address space", path, size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("hf: map %s: %w", path, err)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
