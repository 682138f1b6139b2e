package sshserve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"windtunnel/sessions"
)

// waitLimit bounds every wait of these tests.
const waitLimit = 15 * time.Second

// fakeSource serves in-memory live runs (sessions.Live) whose trainer is a channel.
type fakeSource struct {
	runs  []Run
	feeds map[string]*sessions.Live
	sent  chan sessions.Event // what reached the runs' Control

	mu     sync.Mutex
	opened []string // "name by operator" per Open
}

// newFakeSource returns a source with one live run per task named.
func newFakeSource(tasks ...string) *fakeSource {
	f := &fakeSource{feeds: map[string]*sessions.Live{}, sent: make(chan sessions.Event, 16)}
	for i, task := range tasks {
		name := fmt.Sprintf("run-%d-%s", i+1, task)
		meta := sessions.Meta{Task: task, Model: "transformer", Params: 1000, Layers: 2, Heads: 2, Steps: 100,
			Device: "cpu", Version: "test", Host: "test", Created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		live := sessions.NewLive(meta, sessions.ControlFunc(func(e sessions.Event) error {
			select {
			case f.sent <- e:
				return nil
			default:
				return errors.New("queue full")
			}
		}), nil)
		for s := 1; s <= 20; s++ {
			r := sessions.Record{Step: s, WallS: float64(s) / 10, Loss: 3 / float64(s), LR: 1e-3, StepsPerS: 10, State: sessions.Training}
			if s%10 == 0 {
				r.Eval = &sessions.Eval{BitErrorPosition: 1 / float64(s), BitErrorSample: 1.5 / float64(s), KLBits: 0.1,
					ModelEntropy: []float64{2, 1}, BayesEntropy: []float64{2, 1}}
			}
			live.Record(r)
		}
		f.feeds[name] = live
		f.runs = append(f.runs, Run{Name: name, Task: task, Model: "transformer", Step: 20, Steps: 100, Live: true})
	}
	return f
}

func (f *fakeSource) Runs(context.Context) ([]Run, error) { return f.runs, nil }

func (f *fakeSource) Open(_ context.Context, run Run, by string, operator bool) (sessions.Feed, func() error, error) {
	live, ok := f.feeds[run.Name]
	if !ok {
		return nil, nil, fmt.Errorf("no run %q", run.Name)
	}
	f.mu.Lock()
	f.opened = append(f.opened, fmt.Sprintf("%s %s %v", run.Name, by, operator))
	f.mu.Unlock()
	return live, func() error { return nil }, nil
}

// keys are the client keys of a test server: an operator, a read-only viewer and a key
// the server does not know.
type keys struct{ operator, viewer, stranger gossh.Signer }

// newSigner generates an ed25519 client key.
func newSigner(t *testing.T) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// authorizedLine is a key's authorized_keys line with options and a comment.
func authorizedLine(s gossh.Signer, options, comment string) string {
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(s.PublicKey()))) + " " + comment
	if options != "" {
		line = options + " " + line
	}
	return line + "\n"
}

// startServer serves src on 127.0.0.1 (a free port) and returns its address, host key and
// client keys; edit may change the configuration first.
func startServer(t *testing.T, src Source, edit func(*Config)) (string, gossh.PublicKey, keys) {
	t.Helper()
	dir := t.TempDir()
	host, _, err := HostKey(filepath.Join(dir, "host_key"), true)
	if err != nil {
		t.Fatal(err)
	}
	k := keys{operator: newSigner(t), viewer: newSigner(t), stranger: newSigner(t)}
	authorized := "# test keys\n" + authorizedLine(k.operator, OperatorOption, "op@test") + authorizedLine(k.viewer, "", "viewer@test")
	akPath := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(akPath, []byte(authorized), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Source: src, AuthorizedKeys: akPath, HostKey: host}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(waitLimit):
			t.Error("Serve did not return after Close")
		}
	})
	return ln.Addr().String(), host.PublicKey(), k
}

// dial connects with the given authentication methods, checking the host key.
func dial(t *testing.T, addr string, host gossh.PublicKey, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "colleague", Auth: auth,
		HostKeyCallback: gossh.FixedHostKey(host), Timeout: waitLimit})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// screen is a client session with a terminal: its keyboard and everything it received.
type screen struct {
	t    *testing.T
	sess *gossh.Session
	keys io.Writer

	mu  sync.Mutex
	out bytes.Buffer
}

// openScreen starts the dashboard on a pty of the given terminal type and size.
func openScreen(t *testing.T, c *gossh.Client, term string, w, h int, env ...string) *screen {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if err := sess.Setenv(name, val); err != nil {
			t.Fatalf("setenv %s: %v", kv, err)
		}
	}
	if err := sess.RequestPty(term, h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &screen{t: t, sess: sess, keys: in}
	go func() {
		buf := make([]byte, 32*1024)
		for {
			n, err := out.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	return s
}

// raw is everything received so far, escape sequences included.
func (s *screen) raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// waitFor waits until the text received, escape sequences stripped, contains want.
func (s *screen) waitFor(want string) {
	s.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		if strings.Contains(ansi.Strip(s.raw()), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	text := ansi.Strip(s.raw())
	s.t.Fatalf("the screen never showed %q; it received (last 3000 bytes, stripped):\n%s", want, text[max(len(text)-3000, 0):])
}

// press types keys.
func (s *screen) press(keys string) {
	s.t.Helper()
	if _, err := io.WriteString(s.keys, keys); err != nil {
		s.t.Fatalf("typing %q: %v", keys, err)
	}
}
