//go:build unix

package hf

import (
	"fmt"
	"os"
	"syscall"

	"windtunnel/backends/untrusted"
)

// mapFile maps the regular file at path read-only (anything else is refused before it is
// opened) and returns its bytes, the open file (kept to see the file change: Check) and
// the function that unmaps and closes it. An empty file maps to an empty slice.
func mapFile(path string) ([]byte, *os.File, func() error, error) {
	f, size, err := untrusted.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("hf: %w", err)
	}
	if size == 0 {
		return []byte{}, f, f.Close, nil
	}
	if size != int64(int(size)) {
		f.Close()
		return nil, nil, nil, fmt.Errorf("hf: %s: %d bytes do not fit in this machine's address space", path, size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("hf: map %s: %w", path, err)
	}
	return b, f, func() error {
		err := syscall.Munmap(b)
		f.Close()
		return err
	}, nil
}
