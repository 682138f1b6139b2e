//go:build unix

package sessions

import "syscall"

// openNoFollow and openNonBlock are the open(2) flags openRegular adds.
const (
	openNoFollow = syscall.O_NOFOLLOW
	openNonBlock = syscall.O_NONBLOCK
)
