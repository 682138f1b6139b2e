package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// TestMetric: values recorded by flags and by JSON Lines on stdin are listed back (table
// and JSON Lines); a half-given value, both ways at once, or a bad line is a usage error.
func TestMetric(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "transformer", Steps: 1}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI("metric", path, "--name", "probe/r2", "--step", "10", "--value", "0.5"); code != 0 || !strings.HasPrefix(out, "recorded 1 value in ") {
		t.Fatalf("metric by flags: exit %d %q %s", code, out, errs)
	}
	code, out, errs := runCLIStdin(`{"step": 20, "name": "probe/r2", "value": 0.75}`+"\n"+`{"step": 20, "name": "other", "value": null}`, "metric", path, "--stdin")
	if code != 0 || !strings.HasPrefix(out, "recorded 2 values in ") {
		t.Fatalf("metric --stdin: exit %d %q %s", code, out, errs)
	}
	if code, out, _ := runCLI("metric", path); code != 0 || strings.Join(strings.Fields(out), " ") != "NAME STEP VALUE other 20 NaN probe/r2 10 0.5 probe/r2 20 0.75" {
		t.Errorf("listing: exit %d %q", code, out)
	}
	if code, out, _ := runCLI("metric", path, "--json"); code != 0 || !strings.Contains(out, `{"name":"other","step":20,"value":null}`) {
		t.Errorf("listing as JSON: exit %d %q", code, out)
	}
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"metric", path, "--name", "x", "--step", "1"}, "takes --name, --step and --value"},
		{"", []string{"metric", path, "--stdin", "--name", "x"}, "leave out --name"},
		{`{"step": 1}`, []string{"metric", path, "--stdin"}, "--stdin: line 1:"},
		{"", []string{"metric", path, "--name", "a b", "--step", "1", "--value", "2"}, `metric name "a b"`},
	} {
		code, _, errs := runCLIStdin(c.stdin, c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q, want an error naming %q", c.args, code, errs, c.want)
		}
	}
}

// runCLIStdin is runCLI with stdin reading the text in.
func runCLIStdin(in string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	root := newRoot(&out, &errb)
	root.SetIn(strings.NewReader(in))
	return runRoot(root, args, &errb), out.String(), errb.String()
}
