//go:build !linux && !darwin

package relay

import (
	"errors"
	"net"
	"os"
)

// peerOf cannot read peer credentials on this system: every connection is refused.
func peerOf(*net.UnixConn) (Peer, error) {
	return Peer{}, errors.New("relay: peer credentials are not supported on this system")
}

// fileOwner is unknown on this system.
func fileOwner(os.FileInfo) (uint32, bool) { return 0, false }
