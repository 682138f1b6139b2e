package sshserve

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Connections go through two gates, as in OpenSSH. Accepted, a connection is
// unauthenticated: at most Config.MaxStartups of those are open, at most
// Config.MaxStartupsPerSource from one IP address, and each is closed
// Config.LoginGraceTime after it was accepted unless it has authenticated by then.
// Authenticated, it leaves those counts for the authenticated ones, at most
// Config.MaxSessions (one over is closed).
//
// A connection over the first gate's limits is not refused at once. It takes the place of
// the oldest unauthenticated connection (from its own address when that address holds its
// limit) that has sent nothing for stalledAfter: an SSH client sends its version line as
// soon as it connects, or as soon as it reads the server's, so one that has not is a port
// scan or a socket held open, and is closed. With none to close it waits, up to
// admitWait, for a place (another connection logs in, leaves or is closed); at most
// MaxStartups wait, more are refused. So connections that never log in cannot keep a
// viewer with a valid key out, not even from their own address (behind ssh -L every viewer
// comes from 127.0.0.1), reopened as often as they are closed; and viewers who log in
// together wait their turn instead of being refused.

// stalledAfter is how long an unauthenticated connection may have sent nothing before a
// newer one may take its place.
const stalledAfter = time.Second

// admitWait bounds how long a connection over the limits waits for a place.
const admitWait = 10 * time.Second

// trackedConn is an accepted connection: whether it has authenticated, whether its client
// has sent anything, and its slot, released once when it closes.
type trackedConn struct {
	net.Conn
	s     *Server
	once  sync.Once
	src   string    // the remote host (IP address), for MaxStartupsPerSource
	start time.Time // when it was admitted
	heard atomic.Bool

	// Guarded by s.mu.
	timer          *time.Timer // the login grace timer
	authed, closed bool
}

// Read reads from the client, noting that it has sent something.
func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.heard.Load() {
		c.heard.Store(true)
	}
	return n, err
}

// connKey keys a connection's trackedConn in its context.
type connKey struct{}

// admitConn takes an unauthenticated slot for a new connection and starts its login grace
// timer. Over the limits it closes a stalled connection to make room, or waits for a place
// (see above); it refuses the connection (nil) when none comes within admitWait, when
// MaxStartups connections are waiting already, or when the server closes.
func (s *Server) admitConn(ctx ssh.Context, c net.Conn) net.Conn {
	src := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(src); err == nil {
		src = host
	}
	deadline := time.Now().Add(admitWait)
	s.mu.Lock()
	waiting := false
	defer func() { // every return is past s.mu.Unlock
		if waiting {
			s.mu.Lock()
			s.waiting--
			s.mu.Unlock()
		}
	}()
	for {
		full, scope := s.startupsFull(src)
		if !full {
			break
		}
		if v := s.stalled(scope); v != nil {
			s.mu.Unlock()
			s.log.Printf("serve: closed a connection from %s: sent nothing in %v while %s waited for its place", v.RemoteAddr(), time.Since(v.start).Round(time.Millisecond), c.RemoteAddr())
			v.Close()
			s.mu.Lock()
			continue
		}
		if !waiting {
			if s.waiting >= s.cfg.MaxStartups {
				n := s.waiting
				s.mu.Unlock()
				s.log.Printf("serve: refused a connection from %s: %d not yet authenticated and %d waiting", c.RemoteAddr(), s.cfg.MaxStartups, n)
				return nil
			}
			waiting = true
			s.waiting++
		}
		wake, until := s.freed, s.nextStall(scope)
		if until.IsZero() || until.After(deadline) {
			until = deadline
		}
		s.mu.Unlock()
		t := time.NewTimer(time.Until(until))
		select {
		case <-wake:
		case <-t.C:
		case <-s.done:
		}
		t.Stop()
		closing := false
		select {
		case <-s.done:
			closing = true
		default:
		}
		s.mu.Lock()
		if closing || !time.Now().Before(deadline) {
			n, m := s.preauth, s.preauthFrom[src]
			s.mu.Unlock()
			s.log.Printf("serve: refused a connection from %s: no place within %v (%d not yet authenticated, %d of them from there)", c.RemoteAddr(), admitWait, n, m)
			return nil
		}
	}
	s.preauth++
	s.preauthFrom[src]++
	tc := &trackedConn{Conn: c, s: s, src: src, start: time.Now()}
	s.pre[tc] = struct{}{}
	tc.timer = time.AfterFunc(s.cfg.LoginGraceTime, tc.expire) // under s.mu, as every use
	s.mu.Unlock()
	ctx.SetValue(connKey{}, tc)
	return tc
}

// startupsFull reports whether a connection from src is over the first gate's limits, and
// the address whose connections may give way to it ("": any, when the limit reached is
// MaxStartups alone); s.mu is held.
func (s *Server) startupsFull(src string) (bool, string) {
	switch {
	case s.preauthFrom[src] >= s.cfg.MaxStartupsPerSource:
		return true, src
	case s.preauth >= s.cfg.MaxStartups:
		return true, ""
	}
	return false, ""
}

// stalled is the oldest unauthenticated connection from scope ("": any address) that has
// sent nothing for stalledAfter, nil when there is none; s.mu is held.
func (s *Server) stalled(scope string) *trackedConn {
	var v *trackedConn
	now := time.Now()
	for c := range s.pre {
		if (scope == "" || c.src == scope) && !c.heard.Load() && now.Sub(c.start) >= stalledAfter && (v == nil || c.start.Before(v.start)) {
			v = c
		}
	}
	return v
}

// nextStall is when the next unauthenticated connection from scope that has sent nothing
// so far will have been silent for stalledAfter (zero when there is none); s.mu is held.
func (s *Server) nextStall(scope string) time.Time {
	var at time.Time
	for c := range s.pre {
		if t := c.start.Add(stalledAfter); (scope == "" || c.src == scope) && !c.heard.Load() && (at.IsZero() || t.Before(at)) {
			at = t
		}
	}
	return at
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

// leavePreauth gives back c's unauthenticated slots and wakes the connections waiting for
// one; s.mu is held.
func (s *Server) leavePreauth(c *trackedConn) {
	s.preauth--
	if s.preauthFrom[c.src]--; s.preauthFrom[c.src] <= 0 {
		delete(s.preauthFrom, c.src)
	}
	delete(s.pre, c)
	close(s.freed)
	s.freed = make(chan struct{})
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
