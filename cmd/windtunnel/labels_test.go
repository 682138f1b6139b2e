package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestRunLabels: run --name, --tag and --note are stored as the session's labels, not in its
// configuration; a bad one is a usage error before anything trains.
func TestRunLabels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.wtlab")
	args := append(append([]string{"run", "--json", "--out", path}, tinyRun...), "--steps", "3", "--probe-every", "0",
		"--name", "tiny", "--tag", "a,b", "--tag", "c", "--note", "a note, with a comma")
	if code, _, errs := runCLI(args...); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, err := r.Labels()
	if want := (sessions.Labels{Name: "tiny", Tags: []string{"a", "b", "c"}, Note: "a note, with a comma"}); err != nil || !reflect.DeepEqual(l, want) {
		t.Errorf("labels %+v, %v; want %+v", l, err, want)
	}
	if cfg := string(r.Meta().Config); strings.Contains(cfg, "tiny") || strings.Contains(cfg, "note") {
		t.Errorf("labels in the configuration: %s", cfg)
	}
	for _, bad := range [][]string{{"--tag", "a b"}, {"--name", strings.Repeat("n", sessions.MaxLabelName+1)}} {
		out := filepath.Join(t.TempDir(), "bad.wtlab")
		code, _, errs := runCLI(append(append([]string{"run", "--json", "--out", out}, tinyRun...), bad...)...)
		if code != 2 || !strings.Contains(errs, "--name/--tag/--note") {
			t.Errorf("%q: exit %d, %q", bad, code, errs)
		}
	}
}
