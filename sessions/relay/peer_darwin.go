package relay

import (
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerOf reads the peer's uid of a unix connection (LOCAL_PEERCRED; no pid).
func peerOf(c *net.UnixConn) (Peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	var cred *unix.Xucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	if cerr != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", cerr)
	}
	return Peer{UID: cred.Uid}, nil
}

// fileOwner is the uid owning a file.
func fileOwner(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
