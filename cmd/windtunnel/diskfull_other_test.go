//go:build !linux

package main

// limitChild does nothing where the child's limits are not used (the disk-full and
// address-space tests are Linux-only).
func limitChild() {}
