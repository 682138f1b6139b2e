package sshserve

import (
	"errors"
	"log"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// TestServeBoundsAdmittedKey (issue 50, HIGH 4): an admitted read-only key, speaking as a
// hostile client, cannot grow the server. Each row does one thing many times on one
// connection and checks how many of its asks the server granted, that the excess was
// refused, and that the process's live heap (server and this client together) grew by at
// most maxGrowth. Rejected channel opens cost the SSH library 1.2 KB each until the
// connection ends, so the server closes a connection after maxRejectedChannels of them.
// Before, 100 000 session channels took the server from 26 MB to 650 MB and 20 000 env
// requests of 30 KB to 736 MB.
func TestServeBoundsAdmittedKey(t *testing.T) {
	t.Parallel()
	const maxGrowth = 16 << 20
	big := strings.Repeat("x", 30<<10)
	cases := []struct {
		name      string
		n         int
		wantOK    int // asks granted, of n
		do        func(t *testing.T, c *gossh.Client, i int) error
		wantError string // in every refusal's error, when set
		closes    bool   // the server closes the connection after maxRejectedChannels refusals
	}{
		{"session channels held open", 20000, DefaultMaxSessionsPerKey, func(t *testing.T, c *gossh.Client, i int) error {
			ch, reqs, err := c.OpenChannel("session", nil)
			if err == nil {
				go gossh.DiscardRequests(reqs)
				t.Cleanup(func() { ch.Close() })
			}
			return err
		}, "resource shortage", true},
		{"port forwarding channels", 20000, 0, func(t *testing.T, c *gossh.Client, i int) error {
			_, err := c.Dial("tcp", "127.0.0.1:1")
			return err
		}, "unsupported channel type", true},
		{"session channels opened and closed", 300, 300, func(t *testing.T, c *gossh.Client, i int) error {
			ch, reqs, err := c.OpenChannel("session", nil)
			if err == nil {
				go gossh.DiscardRequests(reqs)
				ch.Close()
			}
			return err
		}, "", false},
		{"env requests of 30 KB", 2000, 0, setenvOn("LC_PAPER", big), "failed", false},
		{"env requests of 10 bytes", 2000, maxEnvRequests, setenvOn("COLORTERM", "truecolor"), "failed", false},
		{"pty requests with a 30 KB terminal type", 200, 0, func(t *testing.T, c *gossh.Client, i int) error {
			return withSession(t, c, func(s *gossh.Session) error { return s.RequestPty(big, 24, 80, gossh.TerminalModes{}) })
		}, "failed", false},
		{"exec requests of 30 KB", 200, 0, func(t *testing.T, c *gossh.Client, i int) error {
			return withSession(t, c, func(s *gossh.Session) error { return s.Start(big) })
		}, "failed", false},
		{"subsystem requests of 30 KB", 200, 0, func(t *testing.T, c *gossh.Client, i int) error {
			return withSession(t, c, func(s *gossh.Session) error { return s.RequestSubsystem(big) })
		}, "failed", false},
		{"global requests of 30 KB", 2000, 0, func(t *testing.T, c *gossh.Client, i int) error {
			ok, _, err := c.SendRequest("hostile@test", true, []byte(big))
			if err == nil && !ok {
				err = errors.New("refused")
			}
			return err
		}, "refused", false},
		{"port forwards", 4, 0, func(t *testing.T, c *gossh.Client, i int) error {
			switch i {
			case 0:
				_, err := c.Dial("tcp", "127.0.0.1:1")
				return err
			case 1:
				_, err := c.Dial("unix", "/tmp/.X11-unix/X0")
				return err
			case 2:
				_, err := c.Listen("tcp", "127.0.0.1:0")
				return err
			default:
				_, err := c.ListenUnix("/tmp/windtunnel-test.sock")
				return err
			}
		}, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logBuf lockedBuffer
			addr, host, k := startServer(t, newFakeSource("bijection"), func(c *Config) { c.Logger = log.New(&logBuf, "", 0) })
			c, err := dial(t, addr, host, gossh.PublicKeys(k.viewer))
			if err != nil {
				t.Fatal(err)
			}
			before := heapInUse()
			closed := make(chan struct{})
			go func() { c.Wait(); close(closed) }()
			ok, closedAt := 0, 0
			deadline := time.Now().Add(waitLimit)
			for i := range tc.n {
				// The client can wait forever for the answer to a channel open sent as
				// the server closes the connection: an ask ends when the connection does.
				res := make(chan error, 1)
				go func() { res <- tc.do(t, c, i) }()
				var err error
				select {
				case err = <-res:
				case <-closed:
					err = errors.New("connection closed")
				}
				if err == nil {
					ok++
				} else if tc.wantError != "" && !strings.Contains(err.Error(), tc.wantError) {
					if tc.closes {
						closedAt = i + 1
						break
					}
					t.Fatalf("ask %d refused with %s, want an error with %q", i+1, clip(err.Error(), 200), tc.wantError)
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d asks took over %v", i+1, tc.n, waitLimit)
				}
			}
			grew := int64(heapInUse()) - int64(before)
			t.Logf("%d of %d granted; heap grew %.1f MB", ok, tc.n, float64(grew)/(1<<20))
			if ok != tc.wantOK {
				t.Errorf("%d of %d asks granted, want %d", ok, tc.n, tc.wantOK)
			}
			if grew > maxGrowth {
				t.Errorf("the heap grew by %.1f MB, want at most %.0f MB", float64(grew)/(1<<20), float64(maxGrowth)/(1<<20))
			}
			_, _, err = c.SendRequest("keepalive@openssh.com", true, nil)
			switch {
			case !tc.closes && err != nil:
				t.Errorf("the connection did not survive: %v", err)
			case tc.closes && (closedAt == 0 || closedAt > tc.wantOK+maxRejectedChannels+1):
				t.Errorf("the connection was still open after %d asks (closed at %d), want it closed after %d refusals",
					tc.n, closedAt, maxRejectedChannels)
			}
			if lines := strings.Count(logBuf.String(), "\n"); lines > 20 {
				t.Errorf("the server logged %d lines; want at most 20 (rate-limited):\n%s", lines, tail(logBuf.String(), 5))
			}
		})
	}
}

// setenvOn sends name=value on one session of c, the same one each time.
func setenvOn(name, value string) func(t *testing.T, c *gossh.Client, i int) error {
	var s *gossh.Session
	return func(t *testing.T, c *gossh.Client, i int) error {
		if s == nil {
			var err error
			if s, err = c.NewSession(); err != nil {
				return err
			}
			t.Cleanup(func() { s.Close() })
		}
		return s.Setenv(name, value)
	}
}

// withSession runs ask on a new session of c and closes it.
func withSession(t *testing.T, c *gossh.Client, ask func(*gossh.Session) error) error {
	s, err := c.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	return ask(s)
}

// TestServeWindowChangeStorm: a read-only viewer sending thousands of window changes to
// its dashboard, alternating between a small and the largest size drawn, costs the server
// no more than the dashboard it draws (each change waits for the dashboard to take it),
// and the dashboard still answers keys afterwards.
func TestServeWindowChangeStorm(t *testing.T) {
	t.Parallel()
	const changes, maxGrowth = 3000, 32 << 20
	addr, host, k := startServer(t, newFakeSource("bijection"), nil)
	c, err := dial(t, addr, host, gossh.PublicKeys(k.viewer))
	if err != nil {
		t.Fatal(err)
	}
	s := openScreen(t, c, "xterm", 80, 24)
	s.waitFor("LIVE training · bijection")
	before := heapInUse()
	t0 := time.Now()
	for i := range changes {
		w, h := 80, 24
		if i%2 == 0 {
			w, h = MaxWidth, MaxHeight
		}
		if err := s.sess.WindowChange(h, w); err != nil {
			t.Fatalf("window change %d: %v", i+1, err)
		}
	}
	mark := len(s.raw())
	s.press("?")
	s.waitForAfter(mark, "Keys")
	grew := int64(heapInUse()) - int64(before)
	t.Logf("%d window changes sent and the dashboard answered in %v; heap grew %.1f MB", changes, time.Since(t0).Round(time.Millisecond), float64(grew)/(1<<20))
	if grew > maxGrowth {
		t.Errorf("the heap grew by %.1f MB, want at most %.0f MB", float64(grew)/(1<<20), float64(maxGrowth)/(1<<20))
	}
}
