//go:build !unix

package sessions

// openNoFollow and openNonBlock are not available here: openRegular checks the file's
// type after it opens it, and follows links.
const (
	openNoFollow = 0
	openNonBlock = 0
)
