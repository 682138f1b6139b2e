package sessions

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// osc52 asks a terminal to put "evil" on the clipboard.
const osc52 = "\x1b]52;c;ZXZpbA==\x07evil"

func TestSafeText(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain ASCII", "cpu host-1.example", "cpu host-1.example"},
		{"valid UTF-8 kept", "Zürich · ρ(PC1) 日本", "Zürich · ρ(PC1) 日本"},
		{"OSC 52 clipboard, BEL-terminated", osc52, "evil"},
		{"OSC title, ST-terminated", "a\x1b]0;pwned\x1b\\b", "ab"},
		{"OSC unterminated runs to the end", "a\x1b]52;c;ZXZpbA==", "a"},
		{"CSI colour and clear", "\x1b[31mred\x1b[0m\x1b[2J", "red"},
		{"CSI cursor up with intermediates", "x\x1b[1;2 Ay", "xy"},
		{"two-character escape", "a\x1b7b\x1bcc", "abc"},
		{"DCS string", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"lone ESC at the end", "a\x1b", "a"},
		{"C1 CSI as a rune", "a\u009b31mb", "ab"},
		{"C1 OSC as a rune, C1 ST", "a\u009d52;c;eA==\u009cb", "ab"},
		{"C1 CSI as a raw byte (invalid UTF-8)", "a\x9b31mb", "a\uFFFD31mb"},
		{"BEL", "a\x07b", "a\uFFFDb"},
		{"NUL", "a\x00b", "a\uFFFDb"},
		{"backspace", "safe\x08\x08\x08\x08evil", "safe\uFFFD\uFFFD\uFFFD\uFFFDevil"},
		{"DEL", "a\x7fb", "a\uFFFDb"},
		{"carriage return and newline become spaces", "ok\rfake\nline\tx", "ok fake line x"},
		{"other C1 control", "a\u0085b", "a\uFFFDb"},
		{"bidi override", "a\u202Eb\u2066c", "a\uFFFDb\uFFFDc"},
		{"invalid UTF-8 replaced", "a\xff\xfeb\xc3", "a\uFFFD\uFFFDb\uFFFD"},
		{"empty", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := SafeText(c.in); got != c.want {
				t.Errorf("SafeText(%q) = %q, want %q", c.in, got, c.want)
			}
			if got := SafeText(SafeText(c.in)); got != c.want {
				t.Errorf("SafeText is not idempotent on %q: %q", c.in, got)
			}
		})
	}
}

func TestSafeTextNoAllocation(t *testing.T) {
	s := "bijection transformer on host-1 · Zürich"
	if n := testing.AllocsPerRun(100, func() { _ = SafeText(s) }); n != 0 {
		t.Errorf("SafeText of a safe string allocates %v times", n)
	}
}

// TestHostileStrings: the strings of a session file that carry escape sequences (the meta's
// host and task, a record's message and state, an event's sender, the stored configuration)
// reach readers without ESC, BEL or C1 controls.
func TestHostileStrings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.wtlab")
	m := testMeta()
	m.Host, m.Task, m.Version = osc52, "\x1b[2Jbijection", "1\u009b31m"
	m.Config = []byte("{\"task\":\"bijection\",\"target\":\"\u009d52;c;ZXZpbA==\u009cx\"}")
	w, err := Create(path, m, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(Record{Step: 1, State: Training, Message: "\x1b[1A\x1b[2Kloss fine\r\x08"})
	w.Event(Event{Step: 1, Kind: EventPause, By: "ssh:" + osc52})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE records SET state = ?`, "training\x1b]0;x\x07"); err != nil {
		t.Fatal(err)
	}
	db.Exec(`PRAGMA journal_mode=DELETE`)
	db.Close()

	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec, _, err := r.At(-1)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := r.Events(-1)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events: %v, %v", evs, err)
	}
	got := r.Meta()
	for name, s := range map[string]string{"host": got.Host, "task": got.Task, "version": got.Version, "config": string(got.Config),
		"message": rec.Message, "state": string(rec.State), "by": evs[0].By} {
		if strings.ContainsAny(s, "\x1b\x07\x08\r\u009b\u009d") {
			t.Errorf("%s %q still holds a control character", name, s)
		}
	}
	if got.Host != "evil" || rec.Message != "loss fine \uFFFD" || rec.State != Training || evs[0].By != "ssh:evil" {
		t.Errorf("host %q, message %q, state %q, by %q", got.Host, rec.Message, rec.State, evs[0].By)
	}
}

// TestSafeLines: each line made safe as SafeText makes it (escapes dropped, controls
// replaced, a carriage return a space), the line breaks kept.
func TestSafeLines(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain\ntwo lines", "plain\ntwo lines"},
		{"a\x1b[2Jb\nc\rd\n", "ab\nc d\n"},
		{"\xff\n\x07", "\uFFFD\n\uFFFD"},
	} {
		if got := SafeLines(c.in); got != c.want {
			t.Errorf("SafeLines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
