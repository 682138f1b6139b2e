package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// TestPick: a query by name prefix, part or session file picks one live run; several or
// none are ChoiceErrors listing the runs; no live run, a session no live run writes and a
// file that is no session are plain errors.
func TestPick(t *testing.T) {
	dir := t.TempDir()
	live := func(name string, pid int) relay.Run {
		return relay.Run{Socket: filepath.Join(dir, name+".sock"), Hello: relay.Hello{Pid: pid, Step: 10,
			Meta: sessions.Meta{Path: filepath.Join(dir, name+".wtlab"), Task: "hmm", Model: "lstm", Steps: 100}}}
	}
	a, b := live("bijection-a", 11), live("hmm-b", 12)
	for _, r := range []relay.Run{a, b} {
		os.WriteFile(r.Hello.Meta.Path, []byte("x"), 0o600)
	}
	idle := filepath.Join(dir, "idle.wtlab")
	w, err := sessions.Create(idle, sessions.Meta{Task: "hmm", Model: "lstm", Steps: 5}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	junk := filepath.Join(dir, "junk.txt")
	os.WriteFile(junk, []byte("not a session"), 0o600)
	both := []relay.Run{a, b}
	for _, c := range []struct {
		name   string
		live   []relay.Run
		query  string
		pid    int    // the run picked, 0: an error
		choice bool   // the error is a ChoiceError
		msg    string // part of the error
	}{
		{"only run", []relay.Run{a}, "", 11, false, ""},
		{"prefix", both, "hmm", 12, false, ""},
		{"part", both, "-a", 11, false, ""},
		{"session file", both, b.Hello.Meta.Path, 12, false, ""},
		{"two, no query", both, "", 0, true, "2 live runs, name one:\n  bijection-a  (hmm lstm, step 10/100, pid 11)\n  hmm-b  (hmm lstm, step 10/100, pid 12)"},
		{"two match", both, "-", 0, true, `2 live runs match "-", name one:`},
		{"none matches", both, "recall", 0, true, `no live run matches "recall"; live runs:` + "\n  bijection-a"},
		{"no live runs", nil, "", 0, false, "no live runs (start one in the background with `windtunnel run --detach`)"},
		{"idle session", both, idle, 0, false, "no live run writes " + idle + " (see it with `windtunnel replay " + idle + "`)"},
		{"not a session", both, junk, 0, false, junk},
	} {
		got, err := Pick(c.live, c.query)
		switch {
		case c.pid != 0 && (err != nil || got.Hello.Pid != c.pid):
			t.Errorf("%s: pid %d, %v; want pid %d", c.name, got.Hello.Pid, err, c.pid)
		case c.pid == 0 && (err == nil || IsChoiceError(err) != c.choice || !strings.Contains(err.Error(), c.msg)):
			t.Errorf("%s: %v (choice %v); want %q (choice %v)", c.name, err, IsChoiceError(err), c.msg, c.choice)
		}
	}
}
