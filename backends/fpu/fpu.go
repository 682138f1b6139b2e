package fpu

import "runtime"

// Mode is a thread's floating-point control word (MXCSR on amd64; zero elsewhere).
type Mode uint32

// flushBits are MXCSR's flush-to-zero (bit 15) and denormals-are-zero (bit 6) bits.
const flushBits Mode = 1<<15 | 1<<6

// FlushSubnormals locks the calling goroutine to its thread, makes the thread flush
// subnormal inputs and results to zero, and returns the mode to give Restore. Calls nest.
func FlushSubnormals() Mode {
	runtime.LockOSThread()
	old := get()
	if supported {
		set(old | flushBits)
	}
	return old
}

// Restore sets the thread's mode back to m, FlushSubnormals' result, and unlocks the
// goroutine from its thread (once for each FlushSubnormals).
func Restore(m Mode) {
	if supported {
		set(m)
	}
	runtime.UnlockOSThread()
}

// Current is the calling thread's mode.
func Current() Mode { return get() }

// Flushing is whether m flushes subnormals to zero.
func (m Mode) Flushing() bool { return supported && m&flushBits == flushBits }
