package relay

import "fmt"

// Peer is the process at the other end of a connection, from the kernel.
type Peer struct {
	UID uint32
	PID int32
}

// allowPeer admits a peer running as uid and refuses any other.
func allowPeer(p Peer, uid uint32) error {
	if p.UID != uid {
		return fmt.Errorf("relay: refused a connection from uid %d (pid %d): this run belongs to uid %d", p.UID, p.PID, uid)
	}
	return nil
}
