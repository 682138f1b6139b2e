package relay

import (
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerOf reads the peer's credentials of a unix connection (SO_PEERCRED).
func peerOf(c *net.UnixConn) (Peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", err)
	}
	if cerr != nil {
		return Peer{}, fmt.Errorf("relay: peer credentials: %w", cerr)
	}
	return Peer{UID: cred.Uid, PID: cred.Pid}, nil
}

// fileOwner is the uid owning a file.
func fileOwner(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
