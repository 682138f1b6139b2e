package sshserve

import (
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Connections go through two gates, as in OpenSSH. Accepted, a connection is
// unauthenticated: at most Config.MaxStartups of those are open, at most
// Config.MaxStartupsPerSource from one IP address (more are closed at once), and each is
// closed Config.LoginGraceTime after it was accepted unless it has authenticated by then.
// Authenticated, it leaves those counts for the authenticated ones, at most
// Config.MaxSessions (one over is closed). So connections that never log in (a port scan,
// or someone holding sockets open) cannot take the viewers' places: from one host they
// fill MaxStartupsPerSource slots at most, for LoginGraceTime each.

// trackedConn is an accepted connection: whether it has authenticated, and its slot,
// released once when it closes.
type trackedConn struct {
	net.Conn
	s    *Server
	once sync.Once
	src  string // the remote host (IP address), for MaxStartupsPerSource

	// Guarded by s.mu.
	timer          *time.Timer // the login grace timer
	authed, closed bool
}

// connKey keys a connection's trackedConn in its context.
type connKey struct{}

// admitConn takes an unauthenticated slot for a new connection, or refuses it (nil) when
// MaxStartups are open, or MaxStartupsPerSource from its address, and starts its login
// grace timer.
func (s *Server) admitConn(ctx ssh.Context, c net.Conn) net.Conn {
	src := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(src); err == nil {
		src = host
	}
	s.mu.Lock()
	if s.preauth >= s.cfg.MaxStartups || s.preauthFrom[src] >= s.cfg.MaxStartupsPerSource {
		n, m := s.preauth, s.preauthFrom[src]
		s.mu.Unlock()
		s.log.Printf("serve: refused a connection from %s: %d not yet authenticated, %d of them from there", c.RemoteAddr(), n, m)
		return nil
	}
	s.preauth++
	s.preauthFrom[src]++
	tc := &trackedConn{Conn: c, s: s, src: src}
	tc.timer = time.AfterFunc(s.cfg.LoginGraceTime, tc.expire) // under s.mu, as every use
	s.mu.Unlock()
	ctx.SetValue(connKey{}, tc)
	return tc
}

// serverConfig is the SSH configuration of one connection: public keys only (New sets the
// callback), a few tries, and the connection marked authenticated when it is.
func (s *Server) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	cfg := &gossh.ServerConfig{MaxAuthTries: 6}
	if tc, ok := ctx.Value(connKey{}).(*trackedConn); ok {
		cfg.AuthLogCallback = func(_ gossh.ConnMetadata, _ string, err error) {
			if err == nil {
				tc.authenticated()
			}
		}
	}
	return cfg
}

// authenticated moves the connection from the unauthenticated slots to the authenticated
// ones and stops its grace timer; with MaxSessions authenticated already it is closed.
func (c *trackedConn) authenticated() {
	s := c.s
	s.mu.Lock()
	if c.authed || c.closed {
		s.mu.Unlock()
		return
	}
	c.timer.Stop()
	if s.authed >= s.cfg.MaxSessions {
		n := s.authed
		s.mu.Unlock()
		s.log.Printf("serve: closed a connection from %s after it authenticated: %d connections open (the most allowed)", c.RemoteAddr(), n)
		c.Close()
		return
	}
	c.authed = true
	s.leavePreauth(c)
	s.authed++
	s.mu.Unlock()
}

// leavePreauth gives back c's unauthenticated slots; s.mu is held.
func (s *Server) leavePreauth(c *trackedConn) {
	s.preauth--
	if s.preauthFrom[c.src]--; s.preauthFrom[c.src] <= 0 {
		delete(s.preauthFrom, c.src)
	}
}

// expire closes the connection if it has not authenticated within the grace time.
func (c *trackedConn) expire() {
	s := c.s
	s.mu.Lock()
	late := !c.authed && !c.closed
	s.mu.Unlock()
	if late {
		s.log.Printf("serve: closed a connection from %s: not authenticated within %v", c.RemoteAddr(), s.cfg.LoginGraceTime)
		c.Close()
	}
}

// Close closes the connection and releases its slot.
func (c *trackedConn) Close() error {
	c.once.Do(func() {
		s := c.s
		s.mu.Lock()
		c.timer.Stop()
		if c.authed {
			s.authed--
		} else {
			s.leavePreauth(c)
		}
		c.closed = true
		s.mu.Unlock()
	})
	return c.Conn.Close()
}
