//go:build linux

package relay

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"windtunnel/sessions"
)

// TestSocketClientBy: what a socket client claims as Event.By is never recorded alone: the
// control receives the client as the kernel knows it (uid and pid from SO_PEERCRED, here
// this process), with the claim, cleaned and cut, after " for ".
func TestSocketClientBy(t *testing.T) {
	me := fmt.Sprintf("local:uid=%d,pid=%d", os.Getuid(), os.Getpid())
	long := "ssh:SHA256:" + strings.Repeat("A", 200)
	for _, c := range []struct{ claim, want string }{
		{"", me},
		{"ssh:SHA256:forgedOperatorKey+/=", me + " for ssh:SHA256:forgedOperatorKey+/="},
		{"local:uid=0,pid=1", me + " for local:uid=0?pid=1"},
		{"ssh:SHA256:x\nfake line\x1b[2J", me + " for ssh:SHA256:x?fake?line"}, // the CSI removed whole on decoding
		{long, me + " for " + long[:maxClaim]},
	} {
		f := newFakeRun(t, nil)
		_, path := serve(t, f, ServerOptions{})
		f.emit(1, 3)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		err := dial(t, path).Send(ctx, sessions.Event{Kind: sessions.EventHead, Layer: 1, Head: 0, By: c.claim})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-f.got:
			if e.By != c.want {
				t.Errorf("claimed %q: recorded by %q, want %q", c.claim, e.By, c.want)
			}
		case <-time.After(testTimeout):
			t.Fatal("the control received nothing")
		}
	}
}

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
