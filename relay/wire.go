package relay

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

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
	// Pid is the trainer's process.
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

// frame is a Message as encoded: records go as wireRecord so that NaN survives.
type frame struct {
	Type   string          `json:"type"`
	Hello  *Hello          `json:"hello,omitempty"`
	Record *wireRecord     `json:"record,omitempty"`
	Event  *sessions.Event `json:"event,omitempty"`
	After  int             `json:"after,omitempty"`
	ID     uint64          `json:"id,omitempty"`
	Error  string          `json:"error,omitempty"`
	Code   string          `json:"code,omitempty"`
	State  sessions.State  `json:"state,omitempty"`
}

// wireRecord is a sessions.Record whose scalars are Num (NaN as null), as the session file
// keeps them (a diverged run's loss is NaN).
type wireRecord struct {
	Step      int                `json:"step"`
	WallS     sessions.Num       `json:"wall_s"`
	Loss      sessions.Num       `json:"loss"`
	LR        sessions.Num       `json:"lr"`
	GradNorm  sessions.Num       `json:"grad_norm"`
	StepsPerS sessions.Num       `json:"steps_per_s"`
	State     sessions.State     `json:"state"`
	Message   string             `json:"message,omitempty"`
	GPUShare  sessions.Num       `json:"gpu_share,omitempty"`
	Eval      *wireEval          `json:"eval,omitempty"`
	Snapshot  *sessions.Snapshot `json:"snapshot,omitempty"`
}

// wireEval is a sessions.Eval with Num scalars and curves.
type wireEval struct {
	BitErrorPosition sessions.Num           `json:"bit_error_position"`
	BitErrorSample   sessions.Num           `json:"bit_error_sample"`
	KLBits           sessions.Num           `json:"kl_bits"`
	TVD              sessions.Num           `json:"tvd"`
	Accuracy         sessions.Num           `json:"accuracy"`
	ModelEntropy     []sessions.Num         `json:"model_entropy_bits,omitempty"`
	BayesEntropy     []sessions.Num         `json:"bayes_entropy_bits,omitempty"`
	Ablated          []sessions.Head        `json:"ablated,omitempty"`
	Lengths          []sessions.LengthScore `json:"lengths,omitempty"`
	KLByPosition     []sessions.Num         `json:"kl_by_position,omitempty"`
	TVDByPosition    []sessions.Num         `json:"tvd_by_position,omitempty"`
}

func nums(xs []float64) []sessions.Num {
	if xs == nil {
		return nil
	}
	out := make([]sessions.Num, len(xs))
	for i, x := range xs {
		out[i] = sessions.Num(x)
	}
	return out
}

func floats(xs []sessions.Num) []float64 {
	if xs == nil {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

func toWire(r *sessions.Record) *wireRecord {
	w := &wireRecord{Step: r.Step, WallS: sessions.Num(r.WallS), Loss: sessions.Num(r.Loss), LR: sessions.Num(r.LR),
		GradNorm: sessions.Num(r.GradNorm), StepsPerS: sessions.Num(r.StepsPerS), State: r.State, Message: r.Message,
		GPUShare: sessions.Num(r.GPUShare), Snapshot: r.Snapshot}
	if e := r.Eval; e != nil {
		w.Eval = &wireEval{BitErrorPosition: sessions.Num(e.BitErrorPosition), BitErrorSample: sessions.Num(e.BitErrorSample),
			KLBits: sessions.Num(e.KLBits), TVD: sessions.Num(e.TVD), Accuracy: sessions.Num(e.Accuracy),
			ModelEntropy: nums(e.ModelEntropy), BayesEntropy: nums(e.BayesEntropy), Ablated: e.Ablated, Lengths: e.Lengths,
			KLByPosition: e.KLByPosition, TVDByPosition: e.TVDByPosition}
	}
	return w
}

func fromWire(w *wireRecord) *sessions.Record {
	r := &sessions.Record{Step: w.Step, WallS: float64(w.WallS), Loss: float64(w.Loss), LR: float64(w.LR),
		GradNorm: float64(w.GradNorm), StepsPerS: float64(w.StepsPerS), State: w.State, Message: w.Message,
		GPUShare: float64(w.GPUShare), Snapshot: w.Snapshot}
	if math.IsNaN(r.GPUShare) {
		r.GPUShare = 0
	}
	if e := w.Eval; e != nil {
		r.Eval = &sessions.Eval{BitErrorPosition: float64(e.BitErrorPosition), BitErrorSample: float64(e.BitErrorSample),
			KLBits: float64(e.KLBits), TVD: float64(e.TVD), Accuracy: float64(e.Accuracy),
			ModelEntropy: floats(e.ModelEntropy), BayesEntropy: floats(e.BayesEntropy), Ablated: e.Ablated, Lengths: e.Lengths,
			KLByPosition: e.KLByPosition, TVDByPosition: e.TVDByPosition}
	}
	return r
}

// errTooLarge is returned for a message over the reader's limit.
var errTooLarge = errors.New("message too large")

// encode turns a message into its bytes, length prefix included. A record whose snapshot
// cannot be encoded (a NaN in a plain float) goes without it, saying why in its message,
// as the session file keeps it.
func encode(m Message, max int) ([]byte, error) {
	f := frame{Type: m.Type, Hello: m.Hello, Event: m.Event, After: m.After, ID: m.ID, Error: m.Error, Code: m.Code, State: m.State}
	if m.Record != nil {
		f.Record = toWire(m.Record)
	}
	b, err := marshalFrame(f)
	if err != nil && f.Record != nil && f.Record.Snapshot != nil {
		f.Record.Snapshot = nil
		f.Record.Message += " (snapshot not sent: " + err.Error() + ")"
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
	if err := json.Unmarshal(body, &f); err != nil {
		return Message{}, fmt.Errorf("malformed message: %w", err)
	}
	if f.Type == "" {
		return Message{}, errors.New("malformed message: no type")
	}
	m := Message{Type: f.Type, Hello: f.Hello, Event: f.Event, After: f.After, ID: f.ID, Error: f.Error, Code: f.Code, State: f.State}
	if f.Record != nil {
		m.Record = fromWire(f.Record)
	}
	return m, nil
}
