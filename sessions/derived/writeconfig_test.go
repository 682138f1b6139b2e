package derived

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"
)

// TestWriteSessionConfig: the stored configuration written as TOML and as YAML, under the
// comment naming the run, reads back (runconfig.ReadFile over the preset) to the same
// configuration; a file that is no session is an error and nothing is written.
func TestWriteSessionConfig(t *testing.T) {
	dir := t.TempDir()
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "hmm")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Steps, cfg.LR, cfg.Seed = 300, 3e-4, 7
	cj, _ := json.Marshal(cfg)
	path := filepath.Join(dir, "a.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "hmm", Model: "transformer", Steps: 300, Config: cj}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 1, State: sessions.Training, Loss: 1})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"toml", "yaml"} {
		var b bytes.Buffer
		if err := WriteSessionConfig(&b, path, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if head := "# The configuration of " + path + " (hmm transformer, 300 steps), as recorded.\n"; !strings.HasPrefix(b.String(), head) {
			t.Errorf("%s: starts %q, want %q", format, firstLine(b.String()), head)
		}
		file := filepath.Join(dir, "c."+format)
		os.WriteFile(file, b.Bytes(), 0o600)
		src, err := runconfig.ReadFile(file)
		if err != nil {
			t.Fatalf("%s: read back: %v\n%s", format, err, b.String())
		}
		base, _ := runconfig.Preset(runconfig.PresetQuick, "hmm")
		got, err := src.Apply(base)
		if err != nil {
			t.Fatalf("%s: apply: %v", format, err)
		}
		if gj, _ := json.Marshal(got); string(gj) != string(cj) {
			t.Errorf("%s: reads back as\n%s\nwant\n%s", format, gj, cj)
		}
	}
	bad := filepath.Join(dir, "not.wtlab")
	os.WriteFile(bad, []byte("not a session"), 0o600)
	var b bytes.Buffer
	if err := WriteSessionConfig(&b, bad, "toml"); err == nil || !strings.Contains(err.Error(), bad) || b.Len() != 0 {
		t.Errorf("not a session: %v, wrote %d bytes; want an error naming it and nothing written", err, b.Len())
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestReadLike: a recorded run's configuration as the --like source: its task and values
// come back, named by the session; a file that is no session is an error.
func TestReadLike(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := runconfig.Preset(runconfig.PresetQuick, "recall")
	cfg.Steps, cfg.Seed = 250, 9
	cj, _ := json.Marshal(cfg)
	path := filepath.Join(dir, "r.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "recall", Model: "transformer", Steps: 250, Config: cj}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	src, err := ReadLike(path)
	if err != nil {
		t.Fatal(err)
	}
	if task, ok := src.Text("task"); !ok || task != "recall" || src.Name != "--like "+path {
		t.Errorf("source %q task %q (%v), want --like %s and recall", src.Name, task, ok, path)
	}
	base, _ := runconfig.Preset(runconfig.PresetQuick, "recall")
	got, err := src.Apply(base)
	if err != nil || got.Steps != 250 || got.Seed != 9 {
		t.Errorf("applied: steps %d seed %d (%v), want 250 and 9", got.Steps, got.Seed, err)
	}
	bad := filepath.Join(dir, "bad.wtlab")
	os.WriteFile(bad, []byte("x"), 0o600)
	if _, err := ReadLike(bad); err == nil {
		t.Errorf("ReadLike(not a session): no error")
	}
}
