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
// unauthenticated: at most Config.MaxStartups of those are in the pool of connections
// logging in, at most Config.MaxStartupsPerSource from one source (an IPv4 address, an
// IPv6 /64, or all of loopback, 127.0.0.0/8 and ::1, as one), and each is closed
// Config.LoginGraceTime after it was accepted unless it has authenticated by then.
// Authenticated, it leaves the pool for the authenticated ones, at most Config.MaxSessions
// (one over is closed).
//
// A connection over the pool's limits is never refused while the pool holds only
// unauthenticated connections, which it always does. It takes the place of one in the pool
// that has been there for Config.tenure (evictableAfter): from its own source when that
// source holds its share, else from the source holding the most; the least advanced first
// (one that has sent nothing, then one that has sent bytes but not reached authentication:
// a version line, a dribble), the oldest of those first. One that has reached
// authentication goes only when none less advanced is left, young ones included. A real
// client reaches authentication within milliseconds of its first byte, so it is the last
// to go, and a young connection (a client behind a slow proxy, silent for a second or two)
// keeps its place for the tenure. With none old enough it waits in its source's queue, in order, for
// one to become so; at most MaxStartups wait, and one more turns the oldest waiter of the
// source with the most waiting out. So connections that never log in cannot keep a viewer
// with a valid key out (not even from its own address: behind ssh -L every viewer comes
// from 127.0.0.1), however often they are reopened: up to the pool's size they change
// nothing, and beyond it they only make the viewer wait its turn.

// evictableAfter is how long a connection keeps its place in the pool before a newer one
// may take it (Config.tenure's default).
const evictableAfter = 3 * time.Second

// How far an unauthenticated connection has come (trackedConn.level).
const (
	heardNothing int32 = iota // its client has sent nothing
	heardBytes                // its client has sent something (a version line, say)
	reachedAuth               // its client has asked to authenticate: key exchange is done
)

// connState is where a connection stands.
type connState int

const (
	waitingPlace connState = iota // accepted, waiting for a place in the pool
	inPool                        // in the pool: its SSH handshake is under way
	authed                        // authenticated
	gone                          // closed, turned out or given up
)

// trackedConn is an accepted connection: its source, how far it has come, and its place,
// given back once when it closes.
type trackedConn struct {
	net.Conn
	s        *Server
	once     sync.Once
	src      string    // its source, for MaxStartupsPerSource (sourceOf)
	accepted time.Time // when it was accepted
	level    atomic.Int32
	kicked   chan struct{} // closed when it is turned out while it waits
	rejected atomic.Int32  // its channel opens rejected (rejectChannel)
	opening  atomic.Bool   // one of its channel opens waits for a slot (sessionChannel)

	// Guarded by s.mu.
	state    connState
	admitted time.Time   // when it entered the pool
	timer    *time.Timer // the login grace timer
}

// Read reads from the client, noting that it has sent something.
func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.level.Load() == heardNothing {
		c.level.CompareAndSwap(heardNothing, heardBytes)
	}
	return n, err
}

// connKey keys a connection's trackedConn in its context.
type connKey struct{}

// sourceOf is the source a remote address counts against: loopback as a whole, an IPv4
// address, or an IPv6 /64.
func sourceOf(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		if h, _, err := net.SplitHostPort(a.String()); err == nil {
			return h
		}
		return a.String()
	}
	switch ip := ta.IP; {
	case ip.IsLoopback():
		return "loopback"
	case ip.To4() != nil:
		return ip.To4().String()
	default:
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
}

// admitConn gives a new connection a place in the pool and starts its login grace timer,
// taking the place of another or waiting for one as above. It gives up (nil) when the
// connection is turned out while waiting, when its grace time runs out first, or when the
// server closes.
func (s *Server) admitConn(ctx ssh.Context, c net.Conn) net.Conn {
	tc := &trackedConn{Conn: c, s: s, src: sourceOf(c.RemoteAddr()), accepted: time.Now(), kicked: make(chan struct{})}
	deadline := tc.accepted.Add(s.cfg.LoginGraceTime)
	s.mu.Lock()
	s.enqueue(tc)
	for {
		if tc.state == gone { // turned out
			s.mu.Unlock()
			return nil
		}
		until := deadline
		if q := s.waitQ[tc.src]; q[0] == tc {
			full, scope := s.startupsFull(tc.src)
			var v *trackedConn
			if full {
				var next time.Time
				v, next = s.victim(scope)
				if v == nil && !next.IsZero() && next.Before(until) {
					until = next
				}
			}
			if !full || v != nil {
				if v != nil {
					s.leavePool(v)
				}
				s.dequeue(tc)
				s.enter(tc, deadline)
				n, m := s.preauth, s.preauthFrom[tc.src]
				s.mu.Unlock()
				if v != nil {
					s.rlog.printf("evict", "serve: closed a connection from %s (%s, %v old) to make room for one from %s: %d connections logging in, %d of them from %s",
						v.RemoteAddr(), levelName(v.level.Load()), time.Since(v.admitted).Round(time.Millisecond), c.RemoteAddr(), n, m, tc.src)
					v.Conn.Close()
				}
				ctx.SetValue(connKey{}, tc)
				return tc
			}
		}
		wake := s.freed
		s.mu.Unlock()
		t := time.NewTimer(time.Until(until))
		closing := false
		select {
		case <-wake:
		case <-t.C:
		case <-tc.kicked:
		case <-s.done:
			closing = true
		}
		t.Stop()
		s.mu.Lock()
		if tc.state == waitingPlace && (closing || !time.Now().Before(deadline)) {
			s.dequeue(tc)
			tc.state = gone
			n, w := s.preauth, s.waiting
			s.mu.Unlock()
			if !closing {
				s.rlog.printf("giveup", "serve: closed a connection from %s: no place within %v (%d connections logging in, %d waiting)",
					c.RemoteAddr(), s.cfg.LoginGraceTime, n, w)
			}
			return nil
		}
	}
}

// levelName says how far a connection has come.
func levelName(l int32) string {
	return [...]string{"silent", "sent bytes", "at authentication"}[l]
}

// enqueue puts a new connection at the end of its source's queue, first turning the oldest
// waiter of the source with the most waiting out when MaxStartups wait; s.mu is held.
func (s *Server) enqueue(tc *trackedConn) {
	if s.waiting >= s.cfg.MaxStartups {
		var most []*trackedConn
		for _, q := range s.waitQ {
			if len(q) > len(most) {
				most = q
			}
		}
		k := most[0]
		s.dequeue(k)
		k.state = gone
		close(k.kicked)
		s.rlog.printf("kick", "serve: closed a connection from %s that waited %v to make room for one more waiting (%d connections logging in, %d others waiting)",
			k.RemoteAddr(), time.Since(k.accepted).Round(time.Millisecond), s.preauth, s.waiting)
	}
	s.waitQ[tc.src] = append(s.waitQ[tc.src], tc)
	s.waiting++
}

// dequeue takes a waiter out of its source's queue and wakes the next; s.mu is held.
func (s *Server) dequeue(tc *trackedConn) {
	q := s.waitQ[tc.src]
	for i, c := range q {
		if c == tc {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(q) == 0 {
		delete(s.waitQ, tc.src)
	} else {
		s.waitQ[tc.src] = q
	}
	s.waiting--
	s.wake()
}

// enter puts a connection in the pool, to be closed at deadline unless it has
// authenticated by then; s.mu is held.
func (s *Server) enter(tc *trackedConn, deadline time.Time) {
	tc.state, tc.admitted = inPool, time.Now()
	s.preauth++
	s.preauthFrom[tc.src]++
	s.pre[tc] = struct{}{}
	tc.timer = time.AfterFunc(time.Until(deadline), tc.expire)
}

// wake wakes the connections waiting for a place; s.mu is held.
func (s *Server) wake() {
	close(s.freed)
	s.freed = make(chan struct{})
}

// startupsFull reports whether a connection from src is over the pool's limits, and the
// source whose connections may give way to it ("": any, when the limit reached is
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

// victim is the connection in the pool from scope ("": any source) that gives way to a
// newer one: of those there for the tenure, the least advanced (then see before). One that
// has reached authentication gives way only when scope holds none less advanced: while it
// does, that one is waited for. With none to give way now, victim returns when one may
// (zero when scope has none); s.mu is held.
func (s *Server) victim(scope string) (*trackedConn, time.Time) {
	now := time.Now()
	var v, young *trackedConn // the first to give way of those past the tenure, of the others
	for c := range s.pre {
		if scope != "" && c.src != scope {
			continue
		}
		switch {
		case now.Before(c.admitted.Add(s.cfg.tenure)):
			if young == nil || s.before(c, young, scope == "") {
				young = c
			}
		case v == nil || s.before(c, v, scope == ""):
			v = c
		}
	}
	switch {
	case young == nil:
		return v, time.Time{}
	case v == nil || v.level.Load() == reachedAuth && young.level.Load() < reachedAuth:
		return nil, young.admitted.Add(s.cfg.tenure)
	}
	return v, time.Time{}
}

// before reports whether c gives way before v: the less advanced first, then (across
// sources) the one whose source holds more, then the older; s.mu is held.
func (s *Server) before(c, v *trackedConn, acrossSources bool) bool {
	if lc, lv := c.level.Load(), v.level.Load(); lc != lv {
		return lc < lv
	}
	if nc, nv := s.preauthFrom[c.src], s.preauthFrom[v.src]; acrossSources && nc != nv {
		return nc > nv
	}
	return c.admitted.Before(v.admitted)
}

// serverConfig is the SSH configuration of one connection: public keys only (New sets the
// callback), a few tries, and the connection marked as having reached authentication, and
// authenticated, when it has.
func (s *Server) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	cfg := &gossh.ServerConfig{MaxAuthTries: 6}
	if tc, ok := ctx.Value(connKey{}).(*trackedConn); ok {
		cfg.AuthLogCallback = func(_ gossh.ConnMetadata, _ string, err error) {
			tc.level.Store(reachedAuth)
			if err == nil {
				tc.authenticated()
			}
		}
	}
	return cfg
}

// authenticated moves the connection from the pool to the authenticated ones and stops its
// grace timer; with MaxSessions authenticated already it is closed.
func (c *trackedConn) authenticated() {
	s := c.s
	s.mu.Lock()
	if c.state != inPool {
		s.mu.Unlock()
		return
	}
	if s.authed >= s.cfg.MaxSessions {
		n := s.authed
		s.mu.Unlock()
		s.rlog.printf("full", "serve: closed a connection from %s after it authenticated: %d connections open (the most allowed)", c.RemoteAddr(), n)
		c.Close()
		return
	}
	s.leavePool(c)
	c.state = authed
	s.authed++
	s.mu.Unlock()
}

// leavePool takes c out of the pool (it is gone unless the caller says otherwise), stops
// its grace timer and wakes the connections waiting for a place; s.mu is held.
func (s *Server) leavePool(c *trackedConn) {
	c.state = gone
	c.timer.Stop()
	s.preauth--
	if s.preauthFrom[c.src]--; s.preauthFrom[c.src] <= 0 {
		delete(s.preauthFrom, c.src)
	}
	delete(s.pre, c)
	s.wake()
}

// expire closes the connection if it has not authenticated within the grace time.
func (c *trackedConn) expire() {
	s := c.s
	s.mu.Lock()
	late := c.state == inPool
	n := s.preauth
	s.mu.Unlock()
	if late {
		s.rlog.printf("grace", "serve: closed a connection from %s (%s): not authenticated within %v (%d connections logging in)",
			c.RemoteAddr(), levelName(c.level.Load()), s.cfg.LoginGraceTime, n)
		c.Close()
	}
}

// Close closes the connection and gives back its place.
func (c *trackedConn) Close() error {
	c.once.Do(func() {
		s := c.s
		s.mu.Lock()
		switch c.state {
		case authed:
			s.authed--
		case inPool:
			s.leavePool(c)
		}
		c.state = gone
		s.mu.Unlock()
	})
	return c.Conn.Close()
}
