//go:build !unix

package untrusted

// openNonBlock is 0 where the platform has no O_NONBLOCK.
const openNonBlock = 0
