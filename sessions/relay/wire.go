package relay

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"windtunnel/backends/untrusted"
	"windtunnel/sessions"
)

// Protocol is the version of the protocol this package speaks; Hello carries it.
const Protocol = 1

// Message size limits in bytes (the JSON after the length prefix).
const (
	// MaxRequest bounds a message from a client (subscribe, send).
	MaxRequest = 64 << 10
	// MaxMessage bounds a message from the server (a record with its snapshot).
	MaxMessage = 64 << 20
)

// Message types.
const (
	TypeHello     = "hello"     // server: Hello
	TypeRecord    = "record"    // server: Record
	TypeEvent     = "event"     // server: Event, as the trainer recorded it
	TypeEnd       = "end"       // server: the run ended in State; the connection closes
	TypeAck       = "ack"       // server: the outcome of the send with ID (Error empty: queued)
	TypeError     = "error"     // server: the request was refused (Error); the connection closes
	TypeSubscribe = "subscribe" // client: stream records and events with Step > After
	TypeSend      = "send"      // client: hand Event to the trainer; answered by an ack with ID
)

// codeReadOnly marks an ack whose event was refused because the run takes no commands.
const codeReadOnly = "read-only"

// Message is one message of the protocol; Type says which fields are set.
type Message struct {
	Type   string
	Hello  *Hello
	Record *sessions.Record
	Event  *sessions.Event
	// After is the step a subscription starts after (−1: from the start).
	After int
	// ID pairs a send with its ack.
	ID uint64
	// Error is why an ack or error refused a request.
	Error string
	// Code classifies Error (codeReadOnly).
	Code string
	// State is the run's final state in an end message.
	State sessions.State
}

// Hello is what the server says first: the run and where it stands.
type Hello struct {
	Protocol int `json:"protocol"`
	// Meta describes the run: Path is the session file (absolute), Socket this socket.
	Meta sessions.Meta `json:"meta"`
	// Pid is the trainer's process (a client replaces the server's claim with the kernel's
	// peer credentials where the system gives them: Dial).
	Pid int `json:"pid"`
	// Step and State are those of the newest record (0 and "" before the first).
	Step  int            `json:"step"`
	State sessions.State `json:"state,omitempty"`
	// BitError is bit error (a) at the newest evaluation of the whole model (NaN: none yet).
	BitError sessions.Num `json:"bit_error_position"`
	// Base is the step after which the live run holds every record and event (−1: the whole
	// run; a resumed run's step at resumption: the session file holds what came before).
	Base int `json:"base"`
	// Live reports whether the run takes operator events.
	Live bool `json:"live"`
}

// frame is a Message as encoded; a sessions.Record encodes its NaN scalars as null itself.
type frame struct {
	Type   string           `json:"type"`
	Hello  *Hello           `json:"hello,omitempty"`
	Record *sessions.Record `json:"record,omitempty"`
	Event  *sessions.Event  `json:"event,omitempty"`
	After  int              `json:"after,omitempty"`
	ID     uint64           `json:"id,omitempty"`
	Error  string           `json:"error,omitempty"`
	Code   string           `json:"code,omitempty"`
	State  sessions.State   `json:"state,omitempty"`
}

// errTooLarge is returned for a message over the reader's limit.
var errTooLarge = errors.New("message too large")

// encode turns a message into its bytes, length prefix included. A record whose snapshot
// cannot be encoded (a NaN in a plain float) goes without it, saying why in its message,
// as the session file keeps it.
func encode(m Message, max int) ([]byte, error) {
	f := frame{Type: m.Type, Hello: m.Hello, Record: m.Record, Event: m.Event, After: m.After, ID: m.ID, Error: m.Error, Code: m.Code, State: m.State}
	b, err := marshalFrame(f)
	if err != nil && f.Record != nil && f.Record.Snapshot != nil {
		r := *f.Record // the caller's record is left as it is
		r.Snapshot = nil
		r.Message += " (snapshot not sent: " + err.Error() + ")"
		f.Record = &r
		b, err = marshalFrame(f)
	}
	if err != nil {
		return nil, fmt.Errorf("relay: encode %s: %w", m.Type, err)
	}
	if len(b)-4 > max {
		return nil, fmt.Errorf("relay: encode %s: %d bytes: %w", m.Type, len(b)-4, errTooLarge)
	}
	return b, nil
}

func marshalFrame(f frame) ([]byte, error) {
	body, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 4, 4+len(body))
	binary.BigEndian.PutUint32(b, uint32(len(body)))
	return append(b, body...), nil
}

// decode reads one message of at most max bytes. It never allocates more than the limit
// and reports malformed input as an error.
func decode(r *bufio.Reader, max int) (Message, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return Message{}, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if uint64(n) > uint64(max) {
		return Message{}, fmt.Errorf("%w: %d bytes, limit %d", errTooLarge, n, max)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return Message{}, fmt.Errorf("truncated message: %w", err)
	}
	var f frame
	if err := untrusted.Unmarshal(body, &f); err != nil {
		return Message{}, fmt.Errorf("malformed message: %w", err)
	}
	if f.Type == "" {
		return Message{}, errors.New("malformed message: no type")
	}
	if err := f.check(); err != nil {
		return Message{}, fmt.Errorf("malformed %s message: %w", sessions.SafeText(f.Type), err)
	}
	return Message{Type: f.Type, Hello: f.Hello, Record: f.Record, Event: f.Event, After: f.After, ID: f.ID, Error: f.Error, Code: f.Code, State: f.State}, nil
}

// check treats a decoded message as a session file's contents are treated: the numbers
// that size or index anything are bounded (sessions' Check methods) and every string is
// made safe to print (sessions.SafeText), before the dashboard, ls or serve's picker shows
// them.
func (f *frame) check() error {
	if h := f.Hello; h != nil {
		h.Meta.Sanitize()
		if err := h.Meta.Check(); err != nil {
			return err
		}
		if h.Step < 0 || h.Step > sessions.MaxSteps || h.Base < -1 || h.Base > sessions.MaxSteps {
			return fmt.Errorf("hello: step %d, base %d out of range", h.Step, h.Base)
		}
		h.State = sessions.State(sessions.SafeText(string(h.State)))
	}
	if r := f.Record; r != nil {
		r.Sanitize()
		if err := r.Check(); err != nil {
			return err
		}
	}
	if e := f.Event; e != nil {
		e.Sanitize()
		if err := e.Check(); err != nil {
			return err
		}
	}
	f.Type, f.Error, f.Code = sessions.SafeText(f.Type), sessions.SafeText(f.Error), sessions.SafeText(f.Code)
	f.State = sessions.State(sessions.SafeText(string(f.State)))
	return nil
}
