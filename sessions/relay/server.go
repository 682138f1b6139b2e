package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"windtunnel/sessions"
)

// WriteTimeout is how long the server waits for a client to take one message before it
// drops the client.
const WriteTimeout = 10 * time.Second

// closeGrace is how long Close lets clients receive the end of the run.
const closeGrace = 2 * time.Second

// ServerOptions configure a Server.
type ServerOptions struct {
	// Session is the session file as clients should open it (absolute; default the Live's
	// Meta.Path made absolute).
	Session string
	// Resumed is the step a resumed run started from (0 for a new run): the Live holds what
	// came after it, the session file what came before.
	Resumed int
	// Logger receives connection and refusal lines (nil: discarded).
	Logger *log.Logger
	// UID is the user admitted (default: this process's).
	UID *uint32
}

// Server serves one run's sessions.Live on a listener. Nothing it does blocks the trainer:
// each connection reads the Live's history on its own goroutines.
type Server struct {
	live   *sessions.Live
	opts   ServerOptions
	uid    uint32
	logger *log.Logger
	ln     net.Listener

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewServer returns a server for live; Serve or Start puts it to work.
func NewServer(live *sessions.Live, opts ServerOptions) *Server {
	s := &Server{live: live, opts: opts, uid: uint32(os.Getuid()), logger: opts.Logger, conns: map[*conn]struct{}{}}
	if opts.UID != nil {
		s.uid = *opts.UID
	}
	if s.logger == nil {
		s.logger = log.New(io.Discard, "", 0)
	}
	if s.opts.Session == "" && live.Meta().Path != "" {
		if abs, err := filepath.Abs(live.Meta().Path); err == nil {
			s.opts.Session = abs
		}
	}
	return s
}

// Start listens on a unix socket at path (Listen) and serves live on it until Close.
func Start(live *sessions.Live, path string, opts ServerOptions) (*Server, error) {
	l, err := Listen(path)
	if err != nil {
		return nil, err
	}
	s := NewServer(live, opts)
	if s.use(l) {
		go s.accept(l)
	}
	return s, nil
}

// Serve accepts connections on l until Close (then it returns nil) or l is closed.
func (s *Server) Serve(l net.Listener) error {
	if !s.use(l) {
		return nil
	}
	return s.accept(l)
}

// use makes l the server's listener; it closes l and reports false after Close.
func (s *Server) use(l net.Listener) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		l.Close()
		return false
	}
	s.ln = l
	return true
}

// accept serves the connections l accepts until Close. A failing Accept (out of file
// descriptors) is logged and retried after a pause that grows to a second, as net/http
// does; only a closed listener ends it.
func (s *Server) accept(l net.Listener) error {
	var pause time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("relay: accept: %w", err)
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			s.logger.Printf("relay: accept: %v; retrying in %v", err, pause)
			time.Sleep(pause)
			continue
		}
		pause = 0
		uc, ok := c.(*net.UnixConn)
		if !ok {
			c.Close()
			continue
		}
		s.add(uc)
	}
}

// add checks the peer of a new connection and starts serving it.
func (s *Server) add(uc *net.UnixConn) {
	p, err := peerOf(uc)
	if err == nil {
		err = allowPeer(p, s.uid)
	}
	if err != nil {
		s.logger.Printf("relay: %v", err)
		uc.Close()
		return
	}
	c := &conn{s: s, nc: uc, by: p.By(), done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		uc.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go c.serve()
}

// Close stops accepting, removes the socket, lets the clients receive the end of the run
// (when the Live has ended) for a moment, then disconnects them.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	ln := s.ln
	s.mu.Unlock()
	var err error
	if ln != nil {
		if e := ln.Close(); e != nil {
			err = fmt.Errorf("relay: close: %w", e)
		}
	}
	s.mu.Lock()
	for c := range s.conns {
		if !c.subscribed.Load() { // nothing more to tell it
			c.close()
		}
	}
	s.mu.Unlock()
	waited := make(chan struct{})
	go func() { s.wg.Wait(); close(waited) }()
	select {
	case <-waited:
		return err
	case <-time.After(closeGrace):
	}
	s.mu.Lock()
	for c := range s.conns {
		c.close()
	}
	s.mu.Unlock()
	<-waited
	return err
}

// hello describes the run as it stands.
func (s *Server) hello() *Hello {
	m := s.live.Meta()
	if s.opts.Session != "" {
		m.Path = s.opts.Session
	}
	h := &Hello{Protocol: Protocol, Meta: m, Pid: os.Getpid(), BitError: sessions.Num(math.NaN()), Base: -1, Live: s.live.Live()}
	if s.opts.Resumed > 0 {
		h.Base = s.opts.Resumed
	}
	if r, ok, _ := s.live.At(-1); ok {
		h.Step, h.State = r.Step, r.State
	}
	evs, _ := s.live.Evals(-1, 0)
	if r, ok := sessions.LastWhole(evs); ok {
		h.BitError = sessions.Num(r.Eval.BitErrorPosition)
	}
	return h
}

// conn is one client connection: a reader of its requests and, once it subscribes, a
// streamer of the Live's records and events; writes are serialised.
type conn struct {
	s    *Server
	nc   *net.UnixConn
	by   string // who the client is (Peer.By): every event it sends is recorded as by it
	wmu  sync.Mutex
	once sync.Once
	done chan struct{}
	subs sync.WaitGroup
	// subscribed is set once the client asked for the stream.
	subscribed atomic.Bool
}

func (c *conn) close() {
	c.once.Do(func() {
		close(c.done)
		c.nc.Close()
	})
}

// write sends one message, dropping the client when it does not take it in time.
func (c *conn) write(m Message) error {
	b, err := encode(m, MaxMessage)
	if err != nil {
		c.s.logger.Printf("%v (not sent)", err)
		return nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.nc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	if _, err := c.nc.Write(b); err != nil {
		c.close()
		return err
	}
	return nil
}

// serve says hello and answers requests until the client leaves or misbehaves.
func (c *conn) serve() {
	defer func() {
		c.close()
		c.subs.Wait()
		c.s.mu.Lock()
		delete(c.s.conns, c)
		c.s.mu.Unlock()
		c.s.wg.Done()
	}()
	if c.write(Message{Type: TypeHello, Hello: c.s.hello()}) != nil {
		return
	}
	br := bufio.NewReaderSize(c.nc, 4096)
	for {
		m, err := decode(br, MaxRequest)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.s.logger.Printf("relay: dropped a client: %v", err)
				c.write(Message{Type: TypeError, Error: err.Error()})
			}
			return
		}
		switch m.Type {
		case TypeSubscribe:
			if c.subscribed.Swap(true) {
				c.write(Message{Type: TypeError, Error: "already subscribed"})
				return
			}
			c.subs.Add(1)
			go c.stream(m.After)
		case TypeSend:
			if m.Event == nil {
				c.write(Message{Type: TypeError, Error: "send without an event"})
				return
			}
			e := *m.Event
			e.By = byFor(c.by, e.By) // what the client claims is never taken alone
			ack := Message{Type: TypeAck, ID: m.ID}
			if err := c.s.live.Send(e); err != nil {
				ack.Error = err.Error()
				if errors.Is(err, sessions.ErrReadOnly) {
					ack.Code = codeReadOnly
				}
			}
			if c.write(ack) != nil {
				return
			}
		default:
			c.write(Message{Type: TypeError, Error: fmt.Sprintf("unknown request %q", m.Type)})
			return
		}
	}
}

// stream sends every record and event with Step > after, then what arrives, then the end
// of the run. It reads the Live's history at its own pace: the trainer never waits.
func (c *conn) stream(after int) {
	defer c.subs.Done()
	ch, cancel := c.s.live.Subscribe()
	defer cancel()
	ri, ei := c.s.live.Index(after)
	for {
		recs, evs, ended := c.s.live.Since(ri, ei)
		for i := range recs {
			if c.write(Message{Type: TypeRecord, Record: &recs[i]}) != nil {
				return
			}
		}
		for i := range evs {
			if c.write(Message{Type: TypeEvent, Event: &evs[i]}) != nil {
				return
			}
		}
		ri, ei = ri+len(recs), ei+len(evs)
		if ended {
			end := Message{Type: TypeEnd}
			if r, ok, _ := c.s.live.At(-1); ok {
				end.State = r.State
			}
			c.write(end)
			c.close()
			return
		}
		select {
		case <-ch:
		case <-c.done:
			return
		}
	}
}
