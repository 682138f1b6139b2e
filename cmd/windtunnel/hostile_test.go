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
