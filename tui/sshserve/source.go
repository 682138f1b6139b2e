package sshserve

import (
	"context"
	"fmt"
	"log"
	"path/filepath"
	"strings"
	"time"

	"windtunnel/sessions"
	"windtunnel/sessions/index"
	"windtunnel/sessions/relay"
)

// Recent is how many recorded sessions IndexSource offers for replay.
const Recent = 20

// IndexSource is windtunnel serve's Source: the live runs of this user, reached through
// their control sockets (sessions/relay), and the newest recorded sessions of a folder
// (sessions/index), replayed.
type IndexSource struct {
	Sockets string // the live runs' control sockets (relay.SocketDir)
	Dir     string // the folder of recorded sessions, searched recursively
	Log     *log.Logger
}

// Runs lists the live runs, then up to Recent recorded sessions of the runs folder,
// newest first (index.List).
func (s IndexSource) Runs(ctx context.Context) ([]Run, error) {
	rows, err := index.List(ctx, index.Options{Dir: s.Dir, Recent: Recent, Sockets: s.Sockets,
		Skip: func(err error) { s.Log.Printf("serve: skipping %v", err) }})
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	out := make([]Run, len(rows))
	for i, r := range rows {
		out[i] = Run{Path: r.Path, Task: r.Task, Model: r.Model, Step: r.Step, Steps: r.Steps, Pid: r.Pid}
		if r.Live != nil {
			out[i].Name, out[i].Live, out[i].Socket = sessions.SafeText(r.Live.Name()), true, r.Socket
		} else {
			out[i].Name = sessions.SafeText(strings.TrimSuffix(filepath.Base(r.Path), filepath.Ext(r.Path)))
		}
	}
	return out, nil
}

// Open reaches a live run through its control socket (operator events go to its trainer)
// and replays a finished one, following the file in case a run still writes it.
func (s IndexSource) Open(ctx context.Context, run Run, _ string, _ bool) (sessions.Feed, func() error, error) {
	if run.Live {
		f, err := relay.OpenFeed(ctx, run.Socket)
		if err != nil {
			return nil, nil, fmt.Errorf("serve: %s: %w", run.Name, err)
		}
		return f, f.Close, nil
	}
	r, err := sessions.Open(run.Path)
	if err != nil {
		return nil, nil, err
	}
	r.Follow(time.Second)
	return r, r.Close, nil
}
