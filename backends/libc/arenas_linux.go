//go:build linux

package libc

import (
	"fmt"
	"runtime"

	"github.com/ebitengine/purego"
)

// mArenaMax is glibc's M_ARENA_MAX parameter of mallopt(3) (a C int, −8).
var mArenaMax int32 = -8

// CapArenas asks glibc's malloc to use at most n arenas (mallopt(M_ARENA_MAX, n)): threads
// that start later share them instead of reserving 64 MiB of address space each. Arenas
// made before the call stay. A C library that is not glibc (no mallopt, or one that refuses
// the parameter) gives an error and nothing changes.
func CapArenas(n int) error {
	// One OS thread for dlopen and the dlerror behind its error (gemm.Dlopen's reason).
	runtime.LockOSThread()
	h, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	runtime.UnlockOSThread()
	if err != nil {
		return fmt.Errorf("libc: %w", err)
	}
	sym, err := purego.Dlsym(h, "mallopt")
	if err != nil {
		return fmt.Errorf("libc: %w", err)
	}
	if r, _, _ := purego.SyscallN(sym, uintptr(mArenaMax), uintptr(n)); int32(r) != 1 {
		return fmt.Errorf("libc: mallopt(M_ARENA_MAX, %d) refused", n)
	}
	return nil
}
