package sshserve

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// What an admitted key may ask of the server is bounded, so that no key, read-only or
// not, can grow it: a session channel takes one of Config.MaxSessionsPerKey channel slots
// of its key, and of Config.MaxSessions in all, while it is open (one more is rejected
// with a resource-shortage reason; the SSH library holds each open channel's buffers, up to
// its window), and each request on it that the library would store is bounded in size and
// the env requests in number. Other channel types (port forwarding, direct or through a
// socket) are rejected, and global requests (tcpip-forward and the like) refused by New's
// empty handler table. The SSH library keeps every channel it rejected until the
// connection ends (golang/go#35127, about 1.2 KB each), so a connection is closed once
// maxRejectedChannels of its channel opens were rejected. Signals are bounded by the library (128 queued), and window
// changes wait for the dashboard to take each (the connection stalls meanwhile, holding
// nothing more).

// Bounds on the requests of one session channel.
const (
	maxEnvRequests  = 32   // env requests (more are refused)
	maxEnvBytes     = 1024 // an env request's name and value together
	maxTermBytes    = 64   // a pty request's terminal type
	maxPtyReqBytes  = 2048 // a whole pty request (its terminal modes, mostly)
	maxCommandBytes = 4096 // an exec request's command (refused anyway: no commands)
)

// channelWait is how long a session channel over its key's limit waits for one of the
// key's channels that the server has closed to be given back before it is rejected (one
// at a time on each connection; others are rejected at once).
const channelWait = time.Second

// maxRejectedChannels is how many channel opens of one connection are rejected before it
// is closed.
const maxRejectedChannels = 64

// sessionChannel opens a session channel of an admitted key within its slots and hands it
// to the library's session handler with its requests bounded.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	var key Key
	ok := false
	if pk, isKey := ctx.Value(ssh.ContextKeyPublicKey).(gossh.PublicKey); isKey {
		key, ok = s.keys.lookup(pk)
	}
	if !ok {
		s.rejectChannel(conn, nc, ctx, gossh.Prohibited, "this key is no longer admitted")
		return
	}
	var h *slot
	var err error
	if tc, isTracked := ctx.Value(connKey{}).(*trackedConn); isTracked && tc.opening.CompareAndSwap(false, true) {
		h, err = s.acquireWithin(&s.channels, key.Fingerprint, channelWait, ctx.Done())
		tc.opening.Store(false)
	} else {
		h, err = s.acquireWithin(&s.channels, key.Fingerprint, 0, nil)
	}
	if err != nil {
		s.rlog.printf("channel", "serve: refused a session channel of %s from %s: %v", key.Fingerprint, conn.RemoteAddr(), err)
		s.rejectChannel(conn, nc, ctx, gossh.ResourceShortage, err.Error())
		return
	}
	defer h.release()
	ssh.DefaultSessionHandler(srv, conn, &boundedChannel{NewChannel: nc, s: s, by: key.Fingerprint, slot: h}, ctx)
}

// otherChannel rejects a channel of any type but session (port forwarding, X11, agent).
func (s *Server) otherChannel(_ *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	s.rejectChannel(conn, nc, ctx, gossh.UnknownChannelType, "unsupported channel type")
}

// rejectChannel rejects a channel open, and closes the connection instead once
// maxRejectedChannels of its channel opens were rejected.
func (s *Server) rejectChannel(conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context, reason gossh.RejectionReason, msg string) {
	tc, ok := ctx.Value(connKey{}).(*trackedConn)
	if ok && tc.rejected.Add(1) > maxRejectedChannels {
		s.rlog.printf("rejected", "serve: closed the connection of %s from %s: %d channel opens rejected", conn.User(), conn.RemoteAddr(), maxRejectedChannels)
		conn.Close()
		return
	}
	nc.Reject(reason, msg)
}

// boundedChannel is a new session channel whose requests, once accepted, pass through
// checkRequest.
type boundedChannel struct {
	gossh.NewChannel
	s    *Server
	by   string // the key's fingerprint, for the log
	slot *slot  // its slot, marked closing when the server closes the channel
}

// closingChannel is an accepted session channel that marks its slot closing when the
// server closes it.
type closingChannel struct {
	gossh.Channel
	slot *slot
}

// Close closes the channel.
func (c closingChannel) Close() error {
	c.slot.markClosing()
	return c.Channel.Close()
}

// Accept accepts the channel and passes on the requests checkRequest lets through; it
// refuses the others.
func (b *boundedChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, in, err := b.NewChannel.Accept()
	if err != nil {
		return nil, nil, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		envs := 0
		for r := range in {
			if r.Type == "env" {
				envs++
			}
			if why := checkRequest(r, envs); why != "" {
				b.s.rlog.printf("request", "serve: refused a %q request of %s: %s", clip(r.Type, 40), b.by, why)
				r.Reply(false, nil)
				continue
			}
			out <- r
		}
	}()
	return closingChannel{Channel: ch, slot: b.slot}, out, nil
}

// checkRequest says why a session channel's request is refused ("" when it is not); envs
// is how many env requests the channel has sent, this one included.
func checkRequest(r *gossh.Request, envs int) string {
	switch r.Type {
	case "env":
		switch {
		case envs > maxEnvRequests:
			return fmt.Sprintf("more than %d env requests", maxEnvRequests)
		case len(r.Payload) > maxEnvBytes+8: // two length prefixes
			return fmt.Sprintf("name and value over %d bytes", maxEnvBytes)
		}
	case "pty-req":
		if len(r.Payload) < 4 || binary.BigEndian.Uint32(r.Payload) > maxTermBytes {
			return fmt.Sprintf("terminal type over %d bytes", maxTermBytes)
		}
		if len(r.Payload) > maxPtyReqBytes {
			return fmt.Sprintf("request over %d bytes", maxPtyReqBytes)
		}
	case "exec":
		if len(r.Payload) > maxCommandBytes+4 {
			return fmt.Sprintf("command over %d bytes", maxCommandBytes)
		}
	case "subsystem":
		return "no subsystems"
	case "x11-req":
		return "no X11 forwarding"
	}
	return ""
}

// clip is s cut to at most n bytes, marked when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("... (%d bytes)", len(s))
}
