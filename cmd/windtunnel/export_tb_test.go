package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestExportTensorBoard: --format tensorboard writes one event file per session named,
// in the run's folder under --out, and prints it (as JSON with --json); without --out, with
// --out for CSV, or with a --what other than scalars it is a usage error naming the flag.
func TestExportTensorBoard(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "one.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "transformer", Steps: 1}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 1, Loss: 2, State: sessions.Done, Eval: &sessions.Eval{KLBits: 0.5}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tb")
	code, stdout, errs := runCLI("export", path, "--format", "tensorboard", "--out", out, "--json")
	var files []string
	if code != 0 || json.Unmarshal([]byte(stdout), &files) != nil || len(files) != 1 || filepath.Dir(files[0]) != filepath.Join(out, "one") {
		t.Fatalf("export: exit %d %q %s", code, stdout, errs)
	}
	if st, err := os.Stat(files[0]); err != nil || st.Size() == 0 {
		t.Fatalf("event file: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", path, "--format", "tensorboard"}, "--out DIR"},
		{[]string{"export", path, "--out", out}, "--out is for --format tensorboard"},
		{[]string{"export", path, "--format", "tensorboard", "--out", out, "--what", "events"}, `--what "events"`},
		{[]string{"export", "--format", "tensorboard", "--out", out}, "one or more session files or folders"},
	} {
		if code, _, errs := runCLI(c.args...); code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q, want a usage error naming %q", c.args, code, errs, c.want)
		}
	}
}
