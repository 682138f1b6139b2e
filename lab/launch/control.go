package launch

import (
	"fmt"
	"io"
	"log"
	"path/filepath"
	"sync"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// Control is a running trainer's live feed and the control socket serving it (package
// relay), through which `windtunnel attach`, `ls` and serve reach the run.
type Control struct {
	// Live is the run's live feed: the trainer's sink, writing the session.
	Live *sessions.Live
	// Socket is the control socket ("" when it could not be opened).
	Socket string
	srv    *relay.Server // nil when the socket could not be opened
	w      *sessions.Writer
	once   sync.Once
}

// StartControl makes the run's live feed (the trainer's sink and sessions.Control, writing
// its session) and serves it on the run's control socket in relay.SocketDir, recording the
// socket in the session's meta. A socket that cannot be opened costs only attaching: it is
// reported on warn and the run goes on without one. Call Stop when the run has ended.
func StartControl(run *Run, logger *log.Logger, warn io.Writer) *Control {
	c := &Control{w: run.Writer}
	session, err := filepath.Abs(run.Writer.Path())
	if err != nil {
		session = run.Writer.Path()
	}
	meta := run.Meta
	dir, err := relay.SocketDir()
	if err == nil {
		meta.Socket = relay.SocketPath(dir, session)
	}
	c.Live = sessions.NewLive(meta, run.Trainer, run.Writer)
	if err == nil {
		c.srv, err = relay.Start(c.Live, meta.Socket, relay.ServerOptions{Session: session, Resumed: run.Trainer.Step(), Logger: logger})
	}
	if err == nil {
		c.Socket = meta.Socket
		err = run.Writer.UpdateMeta(func(m *sessions.Meta) { m.Socket = c.Socket })
	}
	if err != nil {
		fmt.Fprintf(warn, "windtunnel: no control socket, attach and ls will not see this run: %v\n", err)
	}
	return c
}

// Stop ends the live feed (clients receive the end of the run), removes the socket and
// clears it from the session's meta; call it before closing the session. It is safe to
// call more than once.
func (c *Control) Stop() {
	c.once.Do(func() {
		c.Live.End()
		if c.srv == nil {
			return
		}
		c.srv.Close()
		if c.Socket != "" {
			c.w.UpdateMeta(func(m *sessions.Meta) { m.Socket = "" })
		}
	})
}
