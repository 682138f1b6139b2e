package relay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"windtunnel/sessions"
)

// helloTimeout bounds the wait for a server's hello when the context has no deadline.
const helloTimeout = 5 * time.Second

// Client is a connection to a run's control socket. After Dial it holds the server's
// Hello; Subscribe streams the run's records and events to a handler, Send hands an
// operator event to the trainer. Its methods are safe for concurrent use.
type Client struct {
	path  string
	nc    net.Conn
	br    *bufio.Reader
	hello Hello

	wmu sync.Mutex // serialises writes

	mu         sync.Mutex
	nextID     uint64
	pending    map[uint64]chan Message
	handler    func(Message)
	subscribed bool
	ended      bool
	err        error

	once sync.Once
	done chan struct{}
}

// Dial connects to the control socket at path and reads the server's hello.
func Dial(ctx context.Context, path string) (*Client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, errConnRefused) {
			err = fmt.Errorf("%w: %v", errNoRun, err)
		}
		return nil, fmt.Errorf("relay: dial %s: %w", path, err)
	}
	c := &Client{path: path, nc: nc, br: bufio.NewReaderSize(nc, 64<<10), pending: map[uint64]chan Message{}, done: make(chan struct{})}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(helloTimeout)
	}
	nc.SetReadDeadline(deadline)
	m, err := decode(c.br, MaxMessage)
	if err == nil && (m.Type != TypeHello || m.Hello == nil) {
		err = fmt.Errorf("expected a hello, got %q", m.Type)
	}
	if err == nil && m.Hello.Protocol != Protocol {
		err = fmt.Errorf("protocol %d, this build speaks %d", m.Hello.Protocol, Protocol)
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("relay: dial %s: %w", path, err)
	}
	nc.SetReadDeadline(time.Time{})
	c.hello = *m.Hello
	// The run's pid is the kernel's (SO_PEERCRED), not what the server claims: ls, attach's
	// System pane and serve --runs show and sample it. Where the system gives none the claim
	// stays.
	if uc, ok := nc.(*net.UnixConn); ok {
		if p, err := peerOf(uc); err == nil && p.PID > 0 {
			c.hello.Pid = int(p.PID)
		}
	}
	go c.read()
	return c, nil
}

// Probe dials the socket at path, returns its hello and hangs up.
func Probe(ctx context.Context, path string) (Hello, error) {
	c, err := Dial(ctx, path)
	if err != nil {
		return Hello{}, err
	}
	c.Close()
	return c.hello, nil
}

// Hello is what the server said when the client connected.
func (c *Client) Hello() Hello { return c.hello }

// Done is closed when the connection has ended (the run ended, the server dropped the
// client, or Close).
func (c *Client) Done() <-chan struct{} { return c.done }

// Ended reports whether the server announced the end of the run.
func (c *Client) Ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

// Err is why the connection ended: nil while it is up, after the end of the run and after
// Close.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close hangs up.
func (c *Client) Close() error {
	c.finish(nil)
	return nil
}

// finish ends the connection once, recording why.
func (c *Client) finish(err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		c.nc.Close()
		close(c.done)
	})
}

// writeMsg sends one request.
func (c *Client) writeMsg(m Message) error {
	b, err := encode(m, MaxRequest)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.nc.SetWriteDeadline(time.Now().Add(WriteTimeout))
	if _, err := c.nc.Write(b); err != nil {
		return fmt.Errorf("relay: write to %s: %w", c.path, err)
	}
	return nil
}

// Subscribe asks for every record and event with Step > after (−1: the whole run as the
// server holds it, from Hello.Base on), then those that follow, and the end of the run
// (a message of type TypeEnd). handle is called with each, in order, on the client's own
// goroutine; it must not block for long (the server drops a client that does not read).
func (c *Client) Subscribe(after int, handle func(Message)) error {
	c.mu.Lock()
	if c.subscribed {
		c.mu.Unlock()
		return fmt.Errorf("relay: %s: already subscribed", c.path)
	}
	c.subscribed, c.handler = true, handle
	c.mu.Unlock()
	return c.writeMsg(Message{Type: TypeSubscribe, After: after})
}

// Send hands an operator event to the trainer and waits for the server's answer: nil once
// the trainer has queued it (it records the event when it takes effect),
// sessions.ErrReadOnly when the run takes no commands, else the trainer's refusal.
func (c *Client) Send(ctx context.Context, e sessions.Event) error {
	ch := make(chan Message, 1)
	c.mu.Lock()
	if c.err != nil || isClosed(c.done) {
		c.mu.Unlock()
		return sessions.ErrReadOnly
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	if err := c.writeMsg(Message{Type: TypeSend, ID: id, Event: &e}); err != nil {
		return err
	}
	select {
	case m := <-ch:
		switch {
		case m.Code == codeReadOnly:
			return sessions.ErrReadOnly
		case m.Error != "":
			return fmt.Errorf("relay: %s: %s", c.path, m.Error)
		}
		return nil
	case <-c.done:
		return sessions.ErrReadOnly
	case <-ctx.Done():
		return fmt.Errorf("relay: send to %s: %w", c.path, ctx.Err())
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// read dispatches the server's messages until the connection ends.
func (c *Client) read() {
	for {
		m, err := decode(c.br, MaxMessage)
		if err != nil {
			c.mu.Lock()
			ended := c.ended
			c.mu.Unlock()
			if ended || errors.Is(err, net.ErrClosed) {
				err = nil
			} else if errors.Is(err, io.EOF) {
				err = fmt.Errorf("relay: %s: the run closed the connection", c.path)
			} else {
				err = fmt.Errorf("relay: read from %s: %w", c.path, err)
			}
			c.finish(err)
			return
		}
		switch m.Type {
		case TypeAck:
			c.mu.Lock()
			ch := c.pending[m.ID]
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case TypeError:
			c.finish(fmt.Errorf("relay: %s refused: %s", c.path, m.Error))
			return
		case TypeRecord, TypeEvent, TypeEnd:
			if (m.Type == TypeRecord && m.Record == nil) || (m.Type == TypeEvent && m.Event == nil) {
				c.finish(fmt.Errorf("relay: read from %s: %s without its body", c.path, m.Type))
				return
			}
			c.mu.Lock()
			h := c.handler
			if m.Type == TypeEnd {
				c.ended = true
			}
			c.mu.Unlock()
			if h != nil {
				h(m)
			}
		}
	}
}
