package sshserve

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// idleConns opens n TCP connections to addr from the loopback address from (127.0.0.x)
// that send nothing, and sorts them by what the server did: admitted ones got its version
// line, refused ones were closed at once.
func idleConns(t *testing.T, addr, from string, n int) (admitted []net.Conn, refused int) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: waitLimit}
	for range n {
		c, err := d.Dial("tcp", addr)
		if err != nil && strings.Contains(err.Error(), "assign requested address") {
			t.Skipf("cannot dial from %s here (only Linux routes all of 127.0.0.0/8 to lo): %v", from, err)
		}
		if err != nil {
			t.Fatalf("dial from %s: %v", from, err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetReadDeadline(time.Now().Add(waitLimit))
		line, err := bufio.NewReader(c).ReadString('\n')
		switch {
		case err == nil && strings.HasPrefix(line, "SSH-2.0-"):
			admitted = append(admitted, c)
		case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err):
			refused++
		default:
			t.Fatalf("an idle connection read %q, %v", line, err)
		}
	}
	return admitted, refused
}

// isReset reports whether err is a connection reset by the server.
func isReset(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && strings.Contains(oe.Err.Error(), "reset")
}

// waitClosed waits until the server closes every connection in cs (each Read ends with an
// error other than a timeout), failing past limit.
func waitClosed(t *testing.T, cs []net.Conn, limit time.Duration) {
	t.Helper()
	start := time.Now()
	for i, c := range cs {
		c.SetReadDeadline(start.Add(limit))
		_, err := io.Copy(io.Discard, c)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("idle connection %d still open %v after the flood", i, limit)
		}
	}
}

// TestServePreauthFlood: connections that never log in cannot lock viewers out. 32
// connections from one host that send nothing (as many as the session limit) get at most
// MaxStartupsPerSource unauthenticated slots; a viewer from another address logs in and
// sees the dashboard meanwhile; the idle ones are closed after LoginGraceTime while the
// viewer's connection stays. Then idle connections from three hosts fill MaxStartups and
// no more, are closed after the grace time, and a viewer logs in again.
func TestServePreauthFlood(t *testing.T) {
	const grace = time.Second
	src := newFakeSource("bijection")
	addr, host, k := startServer(t, src, func(c *Config) { c.LoginGraceTime = grace })

	admitted, refused := idleConns(t, addr, "127.0.0.2", DefaultMaxSessions)
	if len(admitted) > DefaultMaxStartupsPerSrc || len(admitted)+refused != DefaultMaxSessions {
		t.Fatalf("%d idle connections from one host admitted, %d refused; want at most %d admitted",
			len(admitted), refused, DefaultMaxStartupsPerSrc)
	}
	c, err := dial(t, addr, host, gossh.PublicKeys(k.viewer))
	if err != nil {
		t.Fatalf("a viewer was locked out by %d idle connections: %v", DefaultMaxSessions, err)
	}
	s := openScreen(t, c, "xterm", 100, 30)
	s.waitFor("LIVE training · bijection")
	waitClosed(t, admitted, grace+5*time.Second)
	time.Sleep(grace / 2) // the viewer's connection outlives the grace time
	s.press("4")
	s.waitFor("● on  ○ off")

	var all []net.Conn
	for _, from := range []string{"127.0.0.3", "127.0.0.4", "127.0.0.5"} {
		a, _ := idleConns(t, addr, from, DefaultMaxStartupsPerSrc+1)
		all = append(all, a...)
	}
	if len(all) != DefaultMaxStartups {
		t.Errorf("%d idle connections from three hosts admitted, want MaxStartups = %d", len(all), DefaultMaxStartups)
	}
	waitClosed(t, all, grace+5*time.Second)
	if _, err := dial(t, addr, host, gossh.PublicKeys(k.operator)); err != nil {
		t.Fatalf("a viewer could not log in after the idle connections were closed: %v", err)
	}
}
