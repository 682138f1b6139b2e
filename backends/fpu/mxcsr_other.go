//go:build !amd64

package fpu

// supported is whether this architecture has the mode (only amd64's MXCSR is set here).
const supported = false

func get() Mode { return 0 }

func set(Mode) {}
