package sshserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"

	"windtunnel/sessions"
)

// Defaults of Config's limits.
const (
	DefaultIdleTimeout       = 30 * time.Minute
	DefaultLoginGraceTime    = 20 * time.Second
	DefaultMaxStartups       = 256
	DefaultMaxStartupsPerSrc = 128
	DefaultMaxSessionsPerKey = 4
	DefaultMaxSessions       = 32
)

// Run is one run a viewer can pick: live (a trainer is running it) or finished (its
// session file is replayed).
type Run struct {
	// Name identifies the run in the picker (a session file's base name, say).
	Name string
	// Path is the run's session file ("" when it has none).
	Path string
	// Task and Model describe it; Step is its newest recorded step of Steps planned.
	Task, Model string
	Step, Steps int
	// Live reports whether the run is in progress.
	Live bool
	// Socket is where the Source reaches a live run (its control socket; "" when the
	// Source needs none).
	Socket string
	// Pid is a live run's process on this machine, whose CPU and memory the dashboard's
	// System pane samples (0: unknown; the pane shows the recorded values only).
	Pid int
	// Group is the folder of runs the run belongs to (a sweep's or a compare's, relative to
	// the runs folder; "" for none): the picker lists a group's runs together under its name.
	Group string
	// Label is what a person called the run (its name and tags; "" for none).
	Label string
}

// Source is where the runs a viewer may watch come from.
type Source interface {
	// Runs lists the runs, live and recent finished ones, in the order to show them.
	Runs(ctx context.Context) ([]Run, error)
	// Open returns the feed of run for one viewer and the function that releases it. by is
	// the viewer's Event.By and operator whether its key may operate the run; the server
	// itself refuses a read-only viewer's sends and sets By on an operator's, so a Source
	// may use them for logging or its own checks only.
	Open(ctx context.Context, run Run, by string, operator bool) (sessions.Feed, func() error, error)
}

// Config configures a Server.
type Config struct {
	// Source lists and opens the runs (required).
	Source Source
	// AuthorizedKeys is the OpenSSH authorized_keys file of the admitted keys (required; it
	// must exist, and is re-read when it changes).
	AuthorizedKeys string
	// HostKey is the server's private key (required; see HostKey).
	HostKey gossh.Signer
	// IdleTimeout closes a connection with no traffic either way for that long
	// (DefaultIdleTimeout if 0). A dashboard following a live run redraws as it trains.
	IdleTimeout time.Duration
	// LoginGraceTime closes a connection that has not authenticated that long after it
	// was accepted (DefaultLoginGraceTime if 0), like OpenSSH's LoginGraceTime.
	LoginGraceTime time.Duration
	// MaxStartups bounds the connections not yet authenticated (DefaultMaxStartups if 0),
	// like OpenSSH's MaxStartups. One more takes the place of the least advanced that has
	// been logging in for a few seconds, or waits for a place (conns.go); they hold no
	// authenticated slot, so connections that never log in cannot keep viewers out.
	MaxStartups int
	// MaxStartupsPerSource bounds those from one source (an IPv4 address, an IPv6 /64, or
	// all of loopback; DefaultMaxStartupsPerSrc if 0), like OpenSSH's
	// PerSourceMaxStartups, so one host cannot take them all.
	MaxStartupsPerSource int
	// MaxSessionsPerKey and MaxSessions bound the concurrent sessions of one key and of
	// all keys (DefaultMaxSessionsPerKey, DefaultMaxSessions if 0); MaxSessions also bounds
	// the authenticated connections.
	MaxSessionsPerKey, MaxSessions int
	// Logger receives connections, refusals and operator actions (nil: discarded); lines
	// that strangers can provoke come at most once per logEvery of each kind.
	Logger *log.Logger

	// tenure is how long a connection keeps its place in the pool (evictableAfter if 0).
	tenure time.Duration
}

// Server is the SSH server showing the dashboard.
type Server struct {
	cfg  Config
	log  *log.Logger
	keys *keyring
	srv  *ssh.Server

	rlog *rateLog

	mu          sync.Mutex
	preauth     int                       // connections in the pool (not yet authenticated)
	preauthFrom map[string]int            // of those, by source (sourceOf)
	pre         map[*trackedConn]struct{} // those connections
	waitQ       map[string][]*trackedConn // connections waiting for a place, by source, oldest first
	waiting     int                       // how many
	freed       chan struct{}             // closed (and replaced) when a place or a queue changes
	done        chan struct{}             // closed when the server closes
	doneOnce    sync.Once
	authed      int   // authenticated connections
	sessions    slots // dashboards and the like (gate)
	channels    slots // session channels (sessionChannel)
}

// New builds a server from cfg; Serve starts it.
func New(cfg Config) (*Server, error) {
	switch {
	case cfg.Source == nil:
		return nil, errors.New("sshserve: no Source")
	case cfg.HostKey == nil:
		return nil, errors.New("sshserve: no host key")
	case cfg.AuthorizedKeys == "":
		return nil, errors.New("sshserve: no authorized-keys file")
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxSessionsPerKey <= 0 {
		cfg.MaxSessionsPerKey = DefaultMaxSessionsPerKey
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.LoginGraceTime <= 0 {
		cfg.LoginGraceTime = DefaultLoginGraceTime
	}
	if cfg.MaxStartups <= 0 {
		cfg.MaxStartups = DefaultMaxStartups
	}
	if cfg.MaxStartupsPerSource <= 0 {
		cfg.MaxStartupsPerSource = DefaultMaxStartupsPerSrc
	}
	if cfg.tenure <= 0 {
		cfg.tenure = evictableAfter
	}
	s := &Server{cfg: cfg, log: cfg.Logger, preauthFrom: map[string]int{}, pre: map[*trackedConn]struct{}{},
		waitQ: map[string][]*trackedConn{}, freed: make(chan struct{}), done: make(chan struct{}),
		sessions: newSlots("sessions", cfg.MaxSessionsPerKey, cfg.MaxSessions),
		channels: newSlots("session channels", cfg.MaxSessionsPerKey, cfg.MaxSessions)}
	if s.log == nil {
		s.log = log.New(io.Discard, "", 0)
	}
	s.rlog = newRateLog(s.log, logEvery)
	keys, err := newKeyring(cfg.AuthorizedKeys, func(msg string) { s.log.Printf("serve: %s", msg) })
	if err != nil {
		return nil, fmt.Errorf("sshserve: %w", err)
	}
	s.keys = keys
	srv, err := wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(cfg.HostKey); return nil },
		wish.WithPublicKeyAuth(s.admit),
		wish.WithIdleTimeout(cfg.IdleTimeout),
		// Listed innermost first: the gate runs before the bubbletea middleware.
		wish.WithMiddleware(bm.MiddlewareWithProgramHandler(s.program, termenv.Ascii), s.gate),
	)
	if err != nil {
		return nil, fmt.Errorf("sshserve: %w", err)
	}
	// Public keys only; sessions only (no port forwarding channels or requests), bounded
	// (channels.go); no subsystems (sftp and the like).
	srv.PasswordHandler, srv.KeyboardInteractiveHandler = nil, nil
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel, "default": s.otherChannel}
	srv.RequestHandlers = map[string]ssh.RequestHandler{}
	srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
	srv.LocalPortForwardingCallback, srv.ReversePortForwardingCallback = nil, nil
	srv.ServerConfigCallback = s.serverConfig
	srv.ConnCallback = s.admitConn
	s.srv = srv
	return s, nil
}

// HostKeyFingerprint is the SHA256 fingerprint of the server's host key, for viewers to
// check on first connection.
func (s *Server) HostKeyFingerprint() string {
	return gossh.FingerprintSHA256(s.cfg.HostKey.PublicKey())
}

// Serve accepts connections on ln until Close or Shutdown (then it returns nil).
func (s *Server) Serve(ln net.Listener) error {
	err := s.srv.Serve(ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sshserve: %w", err)
	}
	return nil
}

// Shutdown stops accepting connections and waits for the open ones to end until ctx is
// done, then closes them.
func (s *Server) Shutdown(ctx context.Context) error {
	s.doneOnce.Do(func() { close(s.done); s.rlog.close() }) // connections waiting for a place give up
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return s.Close()
	}
	if err != nil && !errors.Is(err, ssh.ErrServerClosed) {
		return fmt.Errorf("sshserve: shutdown: %w", err)
	}
	return nil
}

// Close closes the listeners and every connection at once.
func (s *Server) Close() error {
	s.doneOnce.Do(func() { close(s.done); s.rlog.close() })
	if err := s.srv.Close(); err != nil && !errors.Is(err, ssh.ErrServerClosed) {
		return fmt.Errorf("sshserve: close: %w", err)
	}
	return nil
}

// admit is the public-key check: only keys in the authorized-keys file get in.
func (s *Server) admit(ctx ssh.Context, pk ssh.PublicKey) bool {
	if _, ok := s.keys.lookup(pk); ok {
		return true
	}
	s.rlog.printf("key", "serve: refused key %s (%s) from %s", gossh.FingerprintSHA256(pk), pk.Type(), ctx.RemoteAddr())
	return false
}

// refuse tells the client why its session ends and ends it with exit status 1.
func refuse(sess ssh.Session, format string, a ...any) {
	fmt.Fprintf(sess.Stderr(), "windtunnel serve: "+format+"\r\n", a...)
	sess.Exit(1)
}

// gate runs before the dashboard: it refuses commands, sessions without a terminal and
// sessions over the limits, re-checks the key, and sets up the viewer the program handler
// picks up. A panic in a session is logged and ends that session only.
func (s *Server) gate(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Printf("serve: session of %s from %s failed: %v", sess.User(), sess.RemoteAddr(), r)
				sess.Exit(1)
			}
		}()
		key, ok := s.keys.lookup(sess.PublicKey())
		if !ok {
			refuse(sess, "this key is no longer admitted")
			return
		}
		if cmd := sess.RawCommand(); cmd != "" {
			s.rlog.printf("command", "serve: refused command %q from %s", clip(cmd, 200), key.Fingerprint)
			refuse(sess, "no commands here; connect without one (ssh -p PORT HOST) to watch the dashboard")
			return
		}
		if _, _, tty := sess.Pty(); !tty {
			refuse(sess, "the dashboard needs a terminal; connect with ssh -t")
			return
		}
		release, err := s.acquire(&s.sessions, key.Fingerprint)
		if err != nil {
			s.rlog.printf("session", "serve: refused a session of %s: %v", key.Fingerprint, err)
			refuse(sess, "%v", err)
			return
		}
		defer release()
		v := &viewer{key: key, log: s.log}
		defer v.close()
		sess.Context().SetValue(viewerKey{}, v)
		role := "read-only"
		if key.Operator {
			role = "operator"
		}
		s.log.Printf("serve: %s %s (%s) connected from %s", role, key.Fingerprint, key.Comment, sess.RemoteAddr())
		next(sess)
		s.log.Printf("serve: %s disconnected", key.Fingerprint)
	}
}

// viewerKey keys the session's viewer in its context.
type viewerKey struct{}
