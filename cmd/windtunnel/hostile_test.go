package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestHostileSessionConfig: probe and --resume of a session whose stored configuration
// names a 10^9-wide model (or does not decode) refuse it as not a session before any model
// is built (exit 1, one line naming the file and the field).
func TestHostileSessionConfig(t *testing.T) {
	for _, c := range []struct {
		name, config, want string
	}{
		{"10^9 wide", `{"task":"bijection","model":"transformer","steps":10,"batch":8,"probe_size":8,"transformer":{"Layers":2,"Heads":2,"Width":1000000000}}`, "Transformer.Width"},
		{"10^6 layers", `{"task":"bijection","model":"transformer","steps":10,"batch":8,"probe_size":8,"transformer":{"Layers":1000000,"Heads":2,"Width":64}}`, "Transformer.Layers"},
		{"not an object", `[1,2,3]`, "config"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "hostile.wtlab")
			w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Config: json.RawMessage(c.config)}, sessions.WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w.Record(sessions.Record{Step: 1, State: sessions.Training})
			w.Checkpoint(&sessions.Checkpoint{Step: 1, Params: []sessions.Tensor{{Name: "w", Shape: []int{1}, F32: []float32{1}}}})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"probe", path}, {"run", "--headless", "--resume", path}} {
				code, _, errs := runCLI(args...)
				if code == 0 || !strings.Contains(errs, "not a windtunnel session") || !strings.Contains(errs, path) || !strings.Contains(errs, c.want) {
					t.Errorf("%v: exit %d, stderr %q: want a refusal naming the file, %q and not a session", args[0], code, errs, c.want)
				}
			}
		})
	}
}

// TestHostileSessionStrings: a session whose meta host is an OSC 52 clipboard write, whose
// task clears the screen and whose record message moves the cursor shows none of it in
// info, ls or an export (no ESC, BEL or C1 control), and an export's message cell that
// starts a spreadsheet formula is prefixed with '.
func TestHostileSessionStrings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hostile.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "\x1b[2Jbijection", Model: "transformer\u009b31m", Host: "\x1b]52;c;ZXZpbA==\x07evil",
		Version: "1\x08\x08", Steps: 10, Config: json.RawMessage(`{"task":"bijection"}`)}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 1, State: sessions.Training, Message: "=HYPERLINK(\"http://x\")\x1b[1A\x1b[2K\r"})
	w.Event(sessions.Event{Step: 1, Kind: sessions.EventPause, By: "@SUM(1)\x1b]0;t\x07"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	outputs := map[string][]string{"info": {"info", path}, "info --json": {"info", "--json", path},
		"ls": {"ls", "--dir", dir}, "export": {"export", path}, "export events": {"export", path, "--what", "events"}}
	got := map[string]string{}
	for name, args := range outputs {
		code, out, errs := runCLI(args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		if strings.ContainsAny(out, "\x1b\x07\x08\r\u009b") {
			t.Errorf("%s prints a control character:\n%q", name, out)
		}
		got[name] = out
	}
	if !strings.Contains(got["info"], " on evil, ") || !strings.Contains(got["ls"], "bijection") {
		t.Errorf("info or ls lost the printable text:\n%s\n%s", got["info"], got["ls"])
	}
	if !strings.Contains(got["export"], `"'=HYPERLINK(""http://x"")`) || !strings.Contains(got["export events"], "'@SUM(1)") {
		t.Errorf("export: a formula cell is not prefixed with ':\n%s\n%s", got["export"], got["export events"])
	}
}
