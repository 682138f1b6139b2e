package fpu

// supported is whether this architecture has the mode (amd64: MXCSR).
const supported = true

// get returns MXCSR (mxcsr_amd64.s).
func get() Mode

// set loads m into MXCSR (mxcsr_amd64.s).
func set(m Mode)
