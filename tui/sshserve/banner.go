package sshserve

import (
	"fmt"
	"io"
	"net"
	"os"
)

// WriteBanner prints what `windtunnel serve` says once it listens on addr: the address,
// the server's host key fingerprint, the authorized-keys file and how to connect (on a
// loopback address, the ssh -L that reaches it from elsewhere).
func (s *Server) WriteBanner(w io.Writer, addr net.Addr, keys string) {
	_, port, _ := net.SplitHostPort(addr.String())
	fmt.Fprintf(w, "windtunnel serve: listening on %s\n", addr)
	fmt.Fprintf(w, "host key   %s\n", s.HostKeyFingerprint())
	fmt.Fprintf(w, "keys       %s\n", keys)
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		fmt.Fprintf(w, "connect    ssh -p %s localhost (this machine only: from elsewhere, ssh -L %s:localhost:%s %s first, or serve --addr :%s)\n",
			port, port, port, hostName(), port)
	} else {
		fmt.Fprintf(w, "connect    ssh -p %s %s\n", port, hostName())
	}
}

// hostName is this machine's name for the connect hint.
func hostName() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "HOST"
}
