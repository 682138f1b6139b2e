package main

import (
	"fmt"
	"io"
	"log"
	"path/filepath"
	"sync"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// control is a running trainer's live feed and the control socket serving it (package
// relay), through which `windtunnel attach`, `ls` and serve reach the run.
type control struct {
	live   *sessions.Live
	srv    *relay.Server // nil when the socket could not be opened
	w      *sessions.Writer
	socket string
	once   sync.Once
}

// startControl makes the run's live feed (the trainer's sink and sessions.Control, writing
// st's session) and serves it on the run's control socket in relay.SocketDir, recording
// the socket in the session's meta. A socket that cannot be opened costs only attaching: it
// is reported on warn and the run goes on without one. Call stop when the run has ended.
func startControl(st *runSetup, logger *log.Logger, warn io.Writer) *control {
	c := &control{w: st.w}
	session, err := filepath.Abs(st.w.Path())
	if err != nil {
		session = st.w.Path()
	}
	meta := st.meta
	dir, err := relay.SocketDir()
	if err == nil {
		meta.Socket = relay.SocketPath(dir, session)
	}
	c.live = sessions.NewLive(meta, st.tr, st.w)
	if err == nil {
		c.srv, err = relay.Start(c.live, meta.Socket, relay.ServerOptions{Session: session, Resumed: st.tr.Step(), Logger: logger})
	}
	if err == nil {
		c.socket = meta.Socket
		err = st.w.UpdateMeta(func(m *sessions.Meta) { m.Socket = c.socket })
	}
	if err != nil {
		fmt.Fprintf(warn, "windtunnel: no control socket, attach and ls will not see this run: %v\n", err)
	}
	return c
}

// stop ends the live feed (clients receive the end of the run), removes the socket and
// clears it from the session's meta; call it before closing the session. It is safe to
// call more than once.
func (c *control) stop() {
	c.once.Do(func() {
		c.live.End()
		if c.srv == nil {
			return
		}
		c.srv.Close()
		if c.socket != "" {
			c.w.UpdateMeta(func(m *sessions.Meta) { m.Socket = "" })
		}
	})
}

// controlLogger is where a headless run logs its control socket's refusals: its stderr
// when that is a log (a detached run's), nowhere when it is a terminal showing the
// progress line.
func controlLogger(stderr io.Writer) *log.Logger {
	if isTerminal(stderr) {
		return nil
	}
	return log.New(stderr, "windtunnel: ", log.LstdFlags)
}
