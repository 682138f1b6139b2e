//go:build !linux

package libc

// CapArenas does nothing here: glibc's per-thread arenas are a Linux matter.
func CapArenas(int) error { return nil }
