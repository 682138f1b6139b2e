//go:build linux

package relay

import (
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
