package tui

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/sessiontest"
)

// TestHostileSessionView: the dashboard on a session whose meta and record message carry
// escape sequences (an OSC 52 clipboard write, a screen clear, cursor moves, a C1 CSI)
// draws none of them; the printable text around them is shown.
func TestHostileSessionView(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.wtlab")
	osc52 := "\x1b]52;c;ZXZpbA==\x07"
	m := sessiontest.DashMeta()
	m.Task, m.Host, m.Model, m.Device = osc52+"bijection", osc52+"evil", "\x1b[2J"+m.Model, "cpu\u009b31m"
	m.Config = json.RawMessage(strings.Replace(string(m.Config), `"bijection"`, `"bijection\u009d52;c;ZXZpbA==\u009c"`, 1))
	w, err := sessions.Create(path, m, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 20; s++ {
		w.Record(sessions.Record{Step: s, State: sessions.Training, Loss: 1, Message: osc52 + "\x1b[1A\x1b[2Kmsg\r\x08"})
	}
	w.Record(sessions.Record{Step: 20, State: sessions.Stopped, Loss: 1, Message: osc52 + "stopped\x1b[2J", Eval: sessiontest.DashEval(20)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		v := sized(New(r, Options{}), sz[0], sz[1]).View()
		for _, bad := range []string{"\x1b]", "\x1b[2J", "\x1b[1A", "\x07", "\x08", "\r", "\u009b", "\u009d", "ZXZpbA"} {
			if strings.Contains(v, bad) {
				t.Errorf("%dx%d: the view holds %q:\n%q", sz[0], sz[1], bad, v)
			}
		}
		if !strings.Contains(plain(sized(New(r, Options{}), sz[0], sz[1])), "bijection") {
			t.Errorf("%dx%d: the task is not shown:\n%s", sz[0], sz[1], v)
		}
	}
}
