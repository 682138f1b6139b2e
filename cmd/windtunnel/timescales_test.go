package main

import (
	"encoding/json"
	"strings"
	"testing"

	"windtunnel/sessions/derived"
)

// tinyTimescales is the experiment at a size that runs in about a second.
var tinyTimescales = []string{"timescales", "--seed-list", "3,4", "--length", "200", "--steps", "80", "--lr", "0.05"}

// TestTimescalesJSON: --json is one result object that derived.DecodeTimescales reads back
// (what report reads), with the seeds and steps asked for; the text form prints the per-seed
// table, the speed-up beside the paper's and the note that the draws are the bench's own.
func TestTimescalesJSON(t *testing.T) {
	code, out, errs := runCLI(append(tinyTimescales, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r, err := derived.DecodeTimescales(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.PerSeed) != 2 || r.PerSeed[0].Seed != 3 || r.Steps != 80 || r.Length != 200 || r.LR != 0.05 || r.ValueLR != 10 {
		t.Errorf("result %+v", r)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil || raw["speedup"] == nil || raw["h_min"] == nil {
		t.Errorf("JSON lacks speedup or h_min: %v", err)
	}
	code, out, errs = runCLI(tinyTimescales...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"baseline steps", "speed-up", "the paper: 2.3×", "H_min", "bench's own draws", "\n3 "} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

// TestTimescalesFlags: every bad setting is a usage error (exit 2) naming its flag.
func TestTimescalesFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--seeds", "0"}, "--seeds"},
		{[]string{"--seeds", "6"}, "--seeds"},
		{[]string{"--seeds", "2", "--seed-list", "1"}, "--seed-list"},
		{[]string{"--steps", "0"}, "--steps"},
		{[]string{"--lr", "-1"}, "--lr"},
		{[]string{"--lr", "NaN"}, "--lr"},
		{[]string{"--value-lr", "0"}, "--value-lr"},
		{[]string{"--length", "1"}, "--length"},
		{[]string{"--workers", "-1"}, "--workers"},
		{[]string{"--blas", "mkl"}, "--blas"},
		{[]string{"--seed-list", "x"}, "--seed-list"},
		{[]string{"extra"}, "no arguments"},
	} {
		code, _, errs := runCLI(append([]string{"timescales"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "panic") {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %s", c.args, code, errs, c.want)
		}
	}
}

// TestTimescalesProgress: timescales says how far it is on stderr while it trains, as run
// does (it printed nothing until it ended): off a terminal a line at each arm's end, the
// last with every arm and step.
func TestTimescalesProgress(t *testing.T) {
	code, _, errs := runCLI(tinyTimescales...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[len(lines)-1], "timescales: 4/4 arms, 320/320 steps") || !strings.Contains(lines[0], "1/4 arms") {
		t.Errorf("progress on stderr, want a line per arm (4), the last all 320 steps:\n%s", errs)
	}
}
