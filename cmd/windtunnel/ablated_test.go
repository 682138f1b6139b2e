package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// TestAblatedLogLines runs a tiny headless run in a child process, switches head L0H1 off
// through its control socket at once, and reads its progress log (stderr, not a terminal)
// and its exports (issue 44, item 13). Before, every evaluation step after the switch had
// two unmarked "step N" lines with different bit errors (the second the ablated
// evaluation) and the CSV's ablated column read 0.1, a number. Now each evaluation step has
// one unmarked line (the whole model) and the ablated evaluation its own line naming the
// heads off; the CSV and both JSON Lines exports name the head L0H1.
func TestAblatedLogLines(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 600 steps in a child process")
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	path := filepath.Join(t.TempDir(), "ablated.wtlab")
	const steps = 600
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append(append([]string{"run", "--headless", "--out", path}, tinyRun...), "--steps", itoa(steps))...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dir, err := relay.SocketDir()
	if err != nil {
		t.Fatal(err)
	}
	var ctl *relay.Client
	for ctl == nil {
		if ctl, err = relay.Dial(ctx, relay.SocketPath(dir, path)); err != nil && ctx.Err() != nil {
			t.Fatalf("no control socket: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := ctl.Send(ctx, sessions.Event{Kind: sessions.EventHead, Layer: 0, Head: 1}); err != nil {
		t.Fatal(err)
	}
	ctl.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	line := regexp.MustCompile(`^step (\d+)/\d+  (?:ablated (\S+): bit error \(a\) (\S+)|.*bit error \(a\) (\S+)  ETA)`)
	whole := map[string]int{} // unmarked evaluation lines per step
	ablatedLines := 0
	for _, l := range strings.Split(stderr.String(), "\n") {
		m := line.FindStringSubmatch(l)
		switch {
		case m == nil:
		case m[2] != "":
			ablatedLines++
			if m[2] != "L0H1" {
				t.Errorf("ablated line names %q, want L0H1: %q", m[2], l)
			}
		case m[4] != "-" && strings.HasSuffix(l, "[training]"):
			whole[m[1]]++
		}
	}
	var twice []string
	for step, n := range whole {
		if n > 1 {
			twice = append(twice, step)
		}
	}
	if len(twice) > 0 {
		t.Errorf("more than one unmarked evaluation line at steps %v:\n%s", twice, stderr.String())
	}
	if ablatedLines < 2 || len(whole) < 2 {
		t.Fatalf("%d ablated and %d whole-model evaluation lines, want ≥ 2 of each:\n%s", ablatedLines, len(whole), stderr.String())
	}
	code, out, errs := runCLI("export", path)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) < 2 || rows[0][13] != "ablated" {
		t.Fatalf("export: exit %d (%v): %s%s", code, err, out, errs)
	}
	cells := 0
	for _, r := range rows[1:] {
		if c := r[13]; c != "" {
			cells++
			if _, err := strconv.ParseFloat(c, 64); err == nil || c != "L0H1" {
				t.Errorf("ablated cell %q at step %s: want L0H1, not a number", c, r[0])
			}
		}
	}
	if cells != ablatedLines {
		t.Errorf("%d ablated rows in the CSV, %d ablated lines in the log", cells, ablatedLines)
	}
	for _, what := range []string{"scalars", "per-position"} {
		code, out, errs := runCLI("export", "--format", "jsonl", "--what", what, path)
		found := 0
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var row struct {
				Ablated json.RawMessage `json:"ablated"`
				Eval    struct {
					Ablated json.RawMessage `json:"ablated"`
				} `json:"eval"`
			}
			if err := json.Unmarshal([]byte(l), &row); err != nil {
				t.Fatalf("export %s: %v: %q", what, err, l)
			}
			a := row.Ablated
			if what == "scalars" {
				a = row.Eval.Ablated
			}
			if len(a) > 0 && string(a) != "null" {
				found++
				if string(a) != `["L0H1"]` {
					t.Errorf("export %s: ablated %s, want [\"L0H1\"]", what, a)
				}
			}
		}
		if code != 0 || found == 0 {
			t.Errorf("export %s: exit %d, %d ablated rows: %s", what, code, found, errs)
		}
	}
}

// TestAblatedHeadNames: heads L0H1 and L0H10, once written 0.1 and 0.10 (one number to a
// spreadsheet), export as L0H1 and L0H10, and two heads off as "L0H1 L0H10" (CSV) or a
// list (JSON Lines).
func TestAblatedHeadNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heads.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "transformer", Steps: 3}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, hs := range [][]sessions.Head{{{Layer: 0, Head: 1}}, {{Layer: 0, Head: 10}}, {{Layer: 0, Head: 1}, {Layer: 0, Head: 10}}} {
		w.Record(sessions.Record{Step: i + 1, State: sessions.Training, Eval: &sessions.Eval{Ablated: hs, ModelEntropy: []float64{1}, BayesEntropy: []float64{1}}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("export", path)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 4 {
		t.Fatalf("export: exit %d (%v): %s%s", code, err, out, errs)
	}
	for i, want := range []string{"L0H1", "L0H10", "L0H1 L0H10"} {
		if got := rows[i+1][13]; got != want {
			t.Errorf("step %d: ablated %q, want %q", i+1, got, want)
		}
	}
	code, out, errs = runCLI("export", "--format", "jsonl", "--what", "per-position", path)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 3 || !strings.Contains(lines[2], `"ablated":["L0H1","L0H10"]`) {
		t.Errorf("export per-position jsonl: exit %d: %s%s", code, out, errs)
	}
}
