//go:build unix

package untrusted

import "syscall"

// openNonBlock opens a FIFO without waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK
