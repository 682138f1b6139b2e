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
	"windtunnel/tui/runpicker"
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
	root, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	out := make([]Run, len(rows))
	for i, r := range rows {
		out[i] = Run{Path: r.Path, Task: r.Task, Model: r.Model, Step: r.Step, Steps: r.Steps, Pid: r.Pid,
			Group: runpicker.Group(root, r.Path), Label: label(r.Labels)}
		if r.Live != nil {
			out[i].Name, out[i].Live, out[i].Socket = sessions.SafeText(r.Live.Name()), true, r.Socket
		} else {
			out[i].Name = sessions.SafeText(strings.TrimSuffix(filepath.Base(r.Path), filepath.Ext(r.Path)))
		}
	}
	return out, nil
}

// label is a run's name and tags as the picker shows them ("" for none).
func label(l sessions.Labels) string {
	parts := []string{}
	if l.Name != "" {
		parts = append(parts, l.Name)
	}
	if len(l.Tags) > 0 {
		parts = append(parts, "#"+strings.Join(l.Tags, " #"))
	}
	return sessions.SafeText(strings.Join(parts, " "))
}

// Open reaches a live run through its control socket (operator events go to its trainer)
// and replays a finished one, following the file in case a run still writes it
// (runpicker.Open).
func (s IndexSource) Open(ctx context.Context, run Run, _ string, _ bool) (sessions.Feed, func() error, error) {
	f, release, err := runpicker.Open(ctx, index.Run{Path: run.Path, Socket: run.Socket, Live: liveMark(run)}, time.Second)
	if err != nil {
		return nil, nil, fmt.Errorf("serve: %s: %w", run.Name, err)
	}
	return f, release, nil
}

// liveMark marks a live run for runpicker.Open, which reaches it through its socket.
func liveMark(run Run) *relay.Run {
	if !run.Live {
		return nil
	}
	return &relay.Run{Socket: run.Socket}
}
