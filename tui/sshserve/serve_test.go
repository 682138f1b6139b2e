package sshserve

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"

	"windtunnel/sessions"
)

// TestServeDashboard: an operator key is admitted and gets the live run's dashboard
// straight away (one live run), in 256 colours for its xterm-256color terminal; a
// window change redraws it at the new width; its head toggle reaches the run's feed with
// By set to the key's fingerprint.
func TestServeDashboard(t *testing.T) {
	t.Parallel()
	src := newFakeSource("bijection")
	addr, host, k := startServer(t, src, nil)
	c, err := dial(t, addr, host, gossh.PublicKeys(k.operator))
	if err != nil {
		t.Fatalf("operator key refused: %v", err)
	}
	s := openScreen(t, c, "xterm-256color", 100, 30)
	s.waitFor("LIVE training · bijection")
	s.waitFor("┗" + strings.Repeat("━", 98) + "┛")
	if !strings.Contains(s.raw(), "\x1b[38;5;") {
		t.Error("no 256-colour sequences for an xterm-256color terminal")
	}

	if err := s.sess.WindowChange(34, 110); err != nil {
		t.Fatal(err)
	}
	s.waitFor("┗" + strings.Repeat("━", 108) + "┛")

	s.press("4")
	s.waitFor("space toggles")
	s.press(" ")
	fp := gossh.FingerprintSHA256(k.operator.PublicKey())
	select {
	case e := <-src.sent:
		if e.Kind != sessions.EventHead || e.Layer != 0 || e.Head != 0 || e.On || e.By != "ssh:"+fp {
			t.Errorf("the feed got %+v, want head L0H0 off by ssh:%s", e, fp)
		}
	case <-time.After(waitLimit):
		t.Fatal("the operator's head toggle never reached the feed")
	}
	s.waitFor("sent: ")
	src.mu.Lock()
	defer src.mu.Unlock()
	if want := "run-1-bijection ssh:" + fp + " true"; len(src.opened) != 1 || src.opened[0] != want {
		t.Errorf("Open calls %q, want [%q]", src.opened, want)
	}
}

// TestServeReadOnly: a key without the operator option watches (in no colour for a vt100
// terminal); the ablation pane does not offer it the head toggles, and space there sends
// nothing and says why on its screen.
func TestServeReadOnly(t *testing.T) {
	t.Parallel()
	src := newFakeSource("bijection")
	addr, host, k := startServer(t, src, nil)
	c, err := dial(t, addr, host, gossh.PublicKeys(k.viewer))
	if err != nil {
		t.Fatalf("viewer key refused: %v", err)
	}
	s := openScreen(t, c, "vt100", 100, 30)
	s.waitFor("LIVE training · bijection")
	s.press("4")
	s.waitFor("● on  ○ off")
	s.press(" ")
	s.waitFor("read-only: this viewer may watch")
	if strings.Contains(ansi.Strip(s.raw()), "space toggles") {
		t.Error("the ablation pane offers a read-only key the head toggles")
	}
	if strings.Contains(s.raw(), "\x1b[38;5;") {
		t.Error("256-colour sequences sent to a vt100 terminal")
	}
	select {
	case e := <-src.sent:
		t.Errorf("a read-only key's event reached the feed: %+v", e)
	default:
	}
}

// TestServePicker: with several live runs a picker lists them and enter opens the one
// under the cursor; with none it says so.
func TestServePicker(t *testing.T) {
	t.Parallel()
	src := newFakeSource("bijection", "hmm")
	addr, host, k := startServer(t, src, nil)
	c, err := dial(t, addr, host, gossh.PublicKeys(k.viewer))
	if err != nil {
		t.Fatal(err)
	}
	s := openScreen(t, c, "xterm", 100, 30)
	s.waitFor("2 runs are live")
	s.waitFor("run-2-hmm")
	s.press("j")
	time.Sleep(100 * time.Millisecond)
	s.press("\r")
	s.waitFor("LIVE training · hmm")

	none := &fakeSource{}
	addr, host, k = startServer(t, none, nil)
	c, err = dial(t, addr, host, gossh.PublicKeys(k.viewer))
	if err != nil {
		t.Fatal(err)
	}
	s = openScreen(t, c, "xterm", 100, 30)
	s.waitFor("No run is live")
}

// TestServeRefusals: unknown keys, passwords and keyboard-interactive answers are refused,
// and so are port forwards both ways; a command and a session without a terminal get a
// message and exit status 1; a session over the per-key limit is rejected when it opens.
func TestServeRefusals(t *testing.T) {
	t.Parallel()
	src := newFakeSource("bijection")
	addr, host, k := startServer(t, src, func(c *Config) { c.MaxSessionsPerKey = 1 })
	if _, err := dial(t, addr, host, gossh.PublicKeys(k.stranger)); err == nil {
		t.Error("an unknown key was admitted")
	}
	if _, err := dial(t, addr, host, gossh.Password("hunter2")); err == nil {
		t.Error("a password was admitted")
	}
	answer := func(string, string, []string, []bool) ([]string, error) { return nil, nil }
	if _, err := dial(t, addr, host, gossh.KeyboardInteractive(answer)); err == nil {
		t.Error("keyboard-interactive was admitted")
	}

	c, err := dial(t, addr, host, gossh.PublicKeys(k.viewer))
	if err != nil {
		t.Fatal(err)
	}
	if conn, err := c.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Error("a port forward (direct-tcpip) was opened")
	}
	if _, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		t.Error("a remote port forward (tcpip-forward) was accepted")
	}
	exitOne := func(what string, run func(*gossh.Session) error, want string) {
		t.Helper()
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		var stderr strings.Builder
		sess.Stderr = &stderr
		err = run(sess)
		var exit *gossh.ExitError
		if !errors.As(err, &exit) || exit.ExitStatus() != 1 {
			t.Errorf("%s: got %v, want exit status 1", what, err)
		}
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("%s: stderr %q lacks %q", what, stderr.String(), want)
		}
	}
	exitOne("a command", func(s *gossh.Session) error { return s.Run("cat /etc/passwd") }, "no commands here")
	exitOne("no terminal", func(s *gossh.Session) error {
		if err := s.Shell(); err != nil {
			return err
		}
		return s.Wait()
	}, "needs a terminal")

	s := openScreen(t, c, "xterm", 80, 24)
	s.waitFor("LIVE training")
	if _, err := c.NewSession(); err == nil || !strings.Contains(err.Error(), "this key already has 1 session channels open") {
		t.Errorf("a second session: got %v, want its channel rejected with the number open", err)
	}
}

// TestServeAuthorizedKeys: the operator option marks operators, harmless restrictions are
// accepted, lines with restrictions the server cannot honour and lines that are not keys
// are skipped with a note.
func TestServeAuthorizedKeys(t *testing.T) {
	op, viewer, limited := newSigner(t), newSigner(t), newSigner(t)
	data := "# a comment\n\n" + authorizedLine(op, "Windtunnel-Operator,no-port-forwarding", "op@lab") +
		authorizedLine(viewer, "restrict", "viewer@lab") + authorizedLine(limited, `from="10.0.0.1"`, "limited@lab") +
		"not a key line\n"
	got, notes := ParseAuthorizedKeys([]byte(data))
	if len(got) != 2 {
		t.Fatalf("admitted %d keys, want 2: %+v", len(got), got)
	}
	if !got[0].Operator || got[0].Comment != "op@lab" || got[0].Fingerprint != gossh.FingerprintSHA256(op.PublicKey()) {
		t.Errorf("operator line read as %+v", got[0])
	}
	if got[1].Operator || got[1].By() != "ssh:"+gossh.FingerprintSHA256(viewer.PublicKey()) {
		t.Errorf("viewer line read as %+v", got[1])
	}
	if len(notes) != 2 || !strings.Contains(notes[0], `"from"`) || !strings.Contains(notes[1], "line 6") {
		t.Errorf("notes %q", notes)
	}
}

// TestServeHostKey: a host key is generated once (mode 0600) and loaded after; a key file
// others may read, or a missing one not to be created, is refused.
func TestServeHostKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conf", "host_key")
	a, created, err := HostKey(path, true)
	if err != nil || !created {
		t.Fatalf("generate: created %v, %v", created, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("host key file %v, %v", st.Mode(), err)
	}
	b, created, err := HostKey(path, true)
	if err != nil || created || gossh.FingerprintSHA256(a.PublicKey()) != gossh.FingerprintSHA256(b.PublicKey()) {
		t.Fatalf("reload: created %v, %v, same key %v", created, err, gossh.FingerprintSHA256(a.PublicKey()) == gossh.FingerprintSHA256(b.PublicKey()))
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := HostKey(path, false); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a world-readable key: %v", err)
	}
	if _, _, err := HostKey(path+".missing", false); err == nil {
		t.Error("a missing key was accepted")
	}
}

// TestServeRenderer: each session's colour profile follows the terminal type and
// environment its client sent.
func TestServeRenderer(t *testing.T) {
	for _, c := range []struct {
		term string
		env  []string
		want termenv.Profile
	}{
		{"xterm-256color", nil, termenv.ANSI256},
		{"xterm-256color", []string{"COLORTERM=truecolor"}, termenv.TrueColor},
		{"xterm-256color", []string{"NO_COLOR=1"}, termenv.Ascii},
		{"xterm", []string{"TERM=ignored-256color"}, termenv.ANSI},
		{"dumb", nil, termenv.Ascii},
		{"", nil, termenv.Ascii},
	} {
		if got := newRenderer(io.Discard, sessionEnv(c.term, c.env)).ColorProfile(); got != c.want {
			t.Errorf("TERM %q env %q: profile %v, want %v", c.term, c.env, got, c.want)
		}
	}
}

// TestOperatorOptionValues: the operator option grants only bare or explicitly true; false
// and values it does not understand leave the key read-only (the latter with a note), as
// does any false one among repeats. End to end, a key listed with windtunnel-operator="false"
// opens the run read-only.
func TestOperatorOptionValues(t *testing.T) {
	s := newSigner(t)
	for _, c := range []struct {
		options  string
		operator bool
		notes    int
	}{
		{"", false, 0},
		{OperatorOption, true, 0},
		{"WINDTUNNEL-OPERATOR", true, 0},
		{OperatorOption + `="true"`, true, 0},
		{OperatorOption + `="yes"`, true, 0},
		{OperatorOption + `="false"`, false, 0},
		{OperatorOption + `="FALSE"`, false, 0},
		{OperatorOption + `="0"`, false, 0},
		{OperatorOption + `="no"`, false, 0},
		{OperatorOption + `=""`, false, 1},
		{OperatorOption + `="maybe"`, false, 1},
		{"restrict," + OperatorOption + `="false"`, false, 0},
		{OperatorOption + "," + OperatorOption + `="false"`, false, 0},
		{OperatorOption + `="false",` + OperatorOption, false, 0},
	} {
		keys, notes := ParseAuthorizedKeys([]byte(authorizedLine(s, c.options, "c@test")))
		if len(keys) != 1 || keys[0].Operator != c.operator || len(notes) != c.notes {
			t.Errorf("options %q: %d keys (operator %v), notes %q; want one key, operator %v, %d notes",
				c.options, len(keys), len(keys) == 1 && keys[0].Operator, notes, c.operator, c.notes)
		}
	}

	src := newFakeSource("bijection")
	falseKey := newSigner(t)
	akPath := filepath.Join(t.TempDir(), "authorized_keys")
	if err := os.WriteFile(akPath, []byte(authorizedLine(falseKey, OperatorOption+`="false"`, "f@test")), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, host, _ := startServer(t, src, func(c *Config) { c.AuthorizedKeys = akPath })
	cl, err := dial(t, addr, host, gossh.PublicKeys(falseKey))
	if err != nil {
		t.Fatalf("key refused: %v", err)
	}
	sc := openScreen(t, cl, "vt100", 100, 30)
	sc.waitFor("LIVE training · bijection")
	src.mu.Lock()
	defer src.mu.Unlock()
	if want := "run-1-bijection ssh:" + gossh.FingerprintSHA256(falseKey.PublicKey()) + " false"; len(src.opened) != 1 || src.opened[0] != want {
		t.Errorf("Open calls %q, want [%q] (read-only)", src.opened, want)
	}
}
