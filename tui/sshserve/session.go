package sshserve

import (
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/muesli/termenv"

	"windtunnel/sessions"
	"windtunnel/tui"
)

// ErrNotOperator is what a read-only viewer's operator actions (pause, stop, head toggles)
// return; the dashboard shows it in its status line.
var ErrNotOperator = errors.New("read-only: this key is not an operator")

// viewer is one SSH session: the key it was admitted with and the feeds it opened.
type viewer struct {
	key Key
	log *log.Logger

	mu      sync.Mutex
	closers []func() error
	closed  bool
}

// hold keeps a feed's release function until the session ends (at once if it has) and
// returns a function that releases the feed sooner (the viewer left its dashboard); the
// feed is released once either way.
func (v *viewer) hold(release func() error) func() {
	if release == nil {
		return func() {}
	}
	once := sync.OnceValue(release)
	v.mu.Lock()
	if !v.closed {
		v.closers = append(v.closers, once)
		v.mu.Unlock()
		return func() {
			if err := once(); err != nil {
				v.log.Printf("serve: release a feed of %s: %v", v.key.Fingerprint, err)
			}
		}
	}
	v.mu.Unlock()
	if err := once(); err != nil {
		v.log.Printf("serve: release a feed of %s: %v", v.key.Fingerprint, err)
	}
	return func() {}
}

// close releases every feed the session opened.
func (v *viewer) close() {
	v.mu.Lock()
	closers := v.closers
	v.closers, v.closed = nil, true
	v.mu.Unlock()
	for _, c := range closers {
		if err := c(); err != nil {
			v.log.Printf("serve: release a feed of %s: %v", v.key.Fingerprint, err)
		}
	}
}

// feed returns run's feed as this viewer may use it.
func (v *viewer) feed(run Run, f sessions.Feed) sessions.Feed {
	return &viewerFeed{Feed: f, v: v, run: run.Name}
}

// viewerFeed is a run's feed for one viewer: a read-only key's sends fail with
// ErrNotOperator; an operator's carry its fingerprint in Event.By.
type viewerFeed struct {
	sessions.Feed
	v   *viewer
	run string
}

// Send passes an operator's event on, marked with who sent it, and refuses everyone else's.
func (f *viewerFeed) Send(e sessions.Event) error {
	if !f.v.key.Operator {
		return ErrNotOperator
	}
	e.By = f.v.key.By()
	if err := f.Feed.Send(e); err != nil {
		f.v.log.Printf("serve: %s: %s from %s failed: %v", f.run, e.Kind, f.v.key.Fingerprint, err)
		return err
	}
	f.v.log.Printf("serve: %s: %s by %s", f.run, describe(e), e.By)
	return nil
}

// describe names an event for the log.
func describe(e sessions.Event) string {
	if e.Kind == sessions.EventHead {
		state := "off"
		if e.On {
			state = "on"
		}
		return fmt.Sprintf("head L%dH%d %s", e.Layer, e.Head, state)
	}
	return string(e.Kind)
}

// program builds the session's bubbletea program: the run picker (which opens the
// dashboard), drawn by the session's own renderer at its terminal's size. It returns nil
// (and the session ends) when the gate set no viewer up.
func (s *Server) program(sess ssh.Session) *tea.Program {
	v, ok := sess.Context().Value(viewerKey{}).(*viewer)
	if !ok {
		return nil
	}
	pty, _, _ := sess.Pty()
	env := sessionEnv(pty.Term, sess.Environ())
	opts := tui.Options{Renderer: newRenderer(sess, env), Width: pty.Window.Width, Height: pty.Window.Height,
		ReadOnly: !v.key.Operator, Embedded: true}
	p := newPicker(sess.Context(), s.cfg.Source, v, opts)
	popts := append(tui.ProgramOptions(tui.Options{AltScreen: true}), bm.MakeOptions(sess)...)
	popts = append(popts, tea.WithEnvironment(env), tea.WithoutSignalHandler())
	return tea.NewProgram(p, popts...)
}

// sessionEnv is the client's environment (what it sent with SendEnv) with TERM set to the
// terminal type of its pty request.
func sessionEnv(term string, environ []string) []string {
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	return append(env, "TERM="+term)
}

// environ is a session's environment for termenv.
type environ []string

// Environ returns the variables.
func (e environ) Environ() []string { return e }

// Getenv returns a variable's value (the last one set), "" if unset.
func (e environ) Getenv(k string) string {
	v := ""
	for _, kv := range e {
		if name, val, ok := strings.Cut(kv, "="); ok && name == k {
			v = val
		}
	}
	return v
}

// newRenderer returns a lipgloss renderer for a session writing to w: its colour profile
// from the client's terminal type and environment (TERM, COLORTERM, NO_COLOR,
// CLICOLOR_FORCE), its background from COLORFGBG (dark if unset). It never queries the
// client's terminal: an unanswered query would stall the session and could eat its first
// keys.
func newRenderer(w io.Writer, env []string) *lipgloss.Renderer {
	opts := []termenv.OutputOption{termenv.WithEnvironment(environ(env)), termenv.WithTTY(true)}
	probe := termenv.NewOutput(io.Discard, opts...) // not a file: nothing is queried
	profile := probe.EnvColorProfile()
	if t := environ(env).Getenv("TERM"); t == "" || t == "dumb" {
		profile = termenv.Ascii
	}
	r := lipgloss.NewRenderer(w, opts...)
	r.SetColorProfile(profile)
	r.SetHasDarkBackground(probe.HasDarkBackground())
	return r
}
