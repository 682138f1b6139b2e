package relay

import (
	"bufio"
	"bytes"
	"testing"

	"windtunnel/sessions"
)

// TestDecodeSanitises: what a socket sends is treated as a session file's contents are: its
// strings reach the dashboard without escape sequences, and a record claiming a step or a
// length beyond the sessions' bounds is refused.
func TestDecodeSanitises(t *testing.T) {
	osc52 := "\x1b]52;c;ZXZpbA==\x07evil"
	hello := Message{Type: TypeHello, Hello: &Hello{Protocol: Protocol, Meta: sessions.Meta{Host: osc52, Task: "\x1b[2Jbijection"}, Base: -1}}
	rec := Message{Type: TypeRecord, Record: &sessions.Record{Step: 3, State: sessions.Training, Message: "\x1b[1A\x1b[2Kok\u009b2J"}}
	ev := Message{Type: TypeEvent, Event: &sessions.Event{Step: 3, Kind: sessions.EventPause, By: osc52}}
	var got []Message
	for _, m := range []Message{hello, rec, ev} {
		b, err := encode(m, MaxMessage)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decode(bufio.NewReader(bytes.NewReader(b)), MaxMessage)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	if h := got[0].Hello.Meta; h.Host != "evil" || h.Task != "bijection" {
		t.Errorf("hello meta host %q task %q, want evil and bijection", h.Host, h.Task)
	}
	if m := got[1].Record.Message; m != "ok" {
		t.Errorf("record message %q, want ok", m)
	}
	if by := got[2].Event.By; by != "evil" {
		t.Errorf("event by %q, want evil", by)
	}
	for _, m := range []Message{
		{Type: TypeRecord, Record: &sessions.Record{Step: 1 << 40}},
		{Type: TypeRecord, Record: &sessions.Record{Step: 1, Eval: &sessions.Eval{Lengths: []sessions.LengthScore{{K: 1 << 30}}}}},
		{Type: TypeHello, Hello: &Hello{Meta: sessions.Meta{Steps: 1 << 50}}},
		{Type: TypeEvent, Event: &sessions.Event{Step: -5}},
	} {
		b, err := encode(m, MaxMessage)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decode(bufio.NewReader(bytes.NewReader(b)), MaxMessage); err == nil {
			t.Errorf("%s message %+v decoded, want a refusal", m.Type, m)
		}
	}
}
