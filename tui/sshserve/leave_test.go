package sshserve

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"windtunnel/sessions"
)

// countingSource is a fakeSource that counts the feeds released.
type countingSource struct {
	*fakeSource
	released atomic.Int32
}

func (c *countingSource) Open(ctx context.Context, run Run, by string, operator bool) (sessions.Feed, func() error, error) {
	f, release, err := c.fakeSource.Open(ctx, run, by, operator)
	if err != nil {
		return nil, nil, err
	}
	return f, func() error { c.released.Add(1); return release() }, nil
}

// recorded returns a source of runs that have all ended: the picker lists them for replay.
func recorded(tasks ...string) *countingSource {
	src := newFakeSource(tasks...)
	for i := range src.runs {
		src.feeds[src.runs[i].Name].End()
		src.runs[i].Live = false
	}
	return &countingSource{fakeSource: src}
}

// since is what the screen received after mark bytes, escape sequences stripped.
func (s *screen) since(mark int) string { return ansi.Strip(s.raw()[mark:]) }

// waitSince waits until what the screen received after mark shows want.
func (s *screen) waitSince(mark int, want string) {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !strings.Contains(s.since(mark), want) {
		if time.Now().After(deadline) {
			text := s.since(mark)
			s.t.Fatalf("after byte %d the screen never showed %q; it received (last 3000 bytes, stripped):\n%s", mark, want, text[max(len(text)-3000, 0):])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// watchEnd returns a function reporting whether s's session ends within a time.
func watchEnd(s *screen) func(time.Duration) bool {
	done := make(chan struct{})
	go func() { s.sess.Wait(); close(done) }()
	return func(d time.Duration) bool {
		select {
		case <-done:
			return true
		case <-time.After(d):
			return false
		}
	}
}

// TestServeReadOnlyScreens: over SSH, a read-only key is never shown an action it cannot
// do, whether on the dashboard's key hints, the ablation pane, the help page or the quit
// dialog (whose question is detach only); an operator key is shown them all.
func TestServeReadOnlyScreens(t *testing.T) {
	t.Parallel()
	for _, operator := range []bool{true, false} {
		name := map[bool]string{true: "operator", false: "read-only"}[operator]
		t.Run(name, func(t *testing.T) {
			addr, host, k := startServer(t, newFakeSource("bijection"), nil)
			key := k.viewer
			if operator {
				key = k.operator
			}
			c, err := dial(t, addr, host, gossh.PublicKeys(key))
			if err != nil {
				t.Fatal(err)
			}
			s := openScreen(t, c, "xterm-256color", 160, 48)
			s.waitFor("page [1 Training]") // the grid of panes: no header line at this size
			s.press("4")
			s.waitFor("● on  ○ off")
			s.press("?")
			s.waitFor("Keys — ?, h or esc closes")
			s.press("\x1b")
			time.Sleep(300 * time.Millisecond) // esc alone: let it arrive before the next key
			s.press("q")
			s.waitFor("The run is still training.")
			s.waitFor("[c] cancel")
			all := ansi.Strip(s.raw())
			actions := []string{"pause/resume", "toggle head", "restore all heads", "space toggles", "stop the run", "[s] stop run"}
			for _, a := range actions {
				if shown := strings.Contains(all, a); shown != operator {
					t.Errorf("%q shown to the %s key: %v", a, name, shown)
				}
			}
			question := map[bool]string{true: "quit: detach or stop the run?", false: "quit: detach from the run?"}[operator]
			if !strings.Contains(all, question) {
				t.Errorf("the quit dialog does not ask %q", question)
			}
		})
	}
}

// TestServeLeaveDashboard: a dashboard the viewer opened from the picker's list goes back
// to the list when left (q on a replay; d on a live run), its feed released, and the list
// opens runs again; q on the list ends the session. The dashboard the picker opened unasked
// (the only live run) ends the session when left, as its quit dialog says.
func TestServeLeaveDashboard(t *testing.T) {
	t.Parallel()
	t.Run("replay", func(t *testing.T) {
		src := recorded("bijection", "hmm")
		addr, host, k := startServer(t, src, nil)
		c, err := dial(t, addr, host, gossh.PublicKeys(k.viewer))
		if err != nil {
			t.Fatal(err)
		}
		s := openScreen(t, c, "xterm", 100, 30)
		ended := watchEnd(s)
		s.waitFor("No run is live. Recent runs, replayed read-only:")
		for round := 1; round <= 2; round++ {
			mark := len(s.raw())
			s.press("\r")
			s.waitSince(mark, "REPLAY")
			mark = len(s.raw())
			s.press("q")
			s.waitSince(mark, "No run is live. Recent runs, replayed read-only:")
			if got := src.released.Load(); got != int32(round) {
				t.Errorf("round %d: %d feeds released, want %d", round, got, round)
			}
			if ended(100 * time.Millisecond) {
				t.Fatalf("round %d: q in the replay ended the session", round)
			}
		}
		s.press("q")
		if !ended(waitLimit) {
			t.Error("q on the list did not end the session")
		}
	})
	t.Run("picked live run", func(t *testing.T) {
		src := newFakeSource("bijection", "hmm")
		addr, host, k := startServer(t, src, nil)
		c, err := dial(t, addr, host, gossh.PublicKeys(k.operator))
		if err != nil {
			t.Fatal(err)
		}
		s := openScreen(t, c, "xterm", 100, 30)
		ended := watchEnd(s)
		s.waitFor("2 runs are live")
		s.waitFor("run-2-hmm")
		s.press("\r")
		s.waitFor("LIVE training · bijection")
		s.press("q")
		s.waitFor("back to the list of runs")
		mark := len(s.raw())
		s.press("d")
		s.waitSince(mark, "2 runs are live")
		if ended(100 * time.Millisecond) {
			t.Fatal("detaching from a picked run ended the session")
		}
		select {
		case e := <-src.sent:
			t.Errorf("detaching sent %+v to the run", e)
		default:
		}
	})
	t.Run("only live run", func(t *testing.T) {
		addr, host, k := startServer(t, newFakeSource("bijection"), nil)
		c, err := dial(t, addr, host, gossh.PublicKeys(k.viewer))
		if err != nil {
			t.Fatal(err)
		}
		s := openScreen(t, c, "xterm", 100, 30)
		ended := watchEnd(s)
		s.waitFor("LIVE training · bijection")
		s.press("q")
		s.waitFor("disconnect; the run goes on")
		s.press("d")
		if !ended(waitLimit) {
			t.Error("detaching from the run the picker opened unasked did not end the session")
		}
	})
}
