//go:build !linux

package main

// limitChildFileSize does nothing where RLIMIT_FSIZE is not used (the disk-full test is
// Linux-only).
func limitChildFileSize() {}
