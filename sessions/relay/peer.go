package relay

import (
	"fmt"
	"strings"
)

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

// By is the Event.By recorded for the events this peer sends: who the kernel says the
// socket client is ("local:uid=1000,pid=4242"; no pid where the system gives none).
func (p Peer) By() string {
	if p.PID > 0 {
		return fmt.Sprintf("local:uid=%d,pid=%d", p.UID, p.PID)
	}
	return fmt.Sprintf("local:uid=%d", p.UID)
}

// maxClaim bounds the part of a client's claimed Event.By that is kept.
const maxClaim = 100

// byFor is the Event.By recorded for an event a client whose own By is peer sent claiming
// claimed: never the claim alone, which any local process of the user could forge (an
// operator key's "ssh:SHA256:…" it does not hold), but the peer, with the claim after
// " for " when there is one: serve, itself a local client, relays its SSH viewers' events
// this way, and the session shows both who sent the event and whom the sender named. The
// claim is cut to maxClaim bytes and anything but letters, digits and ":+/=._-" in it
// becomes "?".
func byFor(peer, claimed string) string {
	if claimed == "" {
		return peer
	}
	if len(claimed) > maxClaim {
		claimed = claimed[:maxClaim]
	}
	b := []byte(claimed)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(":+/=._-", c) >= 0
		if !ok {
			b[i] = '?'
		}
	}
	return peer + " for " + string(b)
}
