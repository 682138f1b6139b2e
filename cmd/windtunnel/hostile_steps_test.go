package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // to plant values the writer never writes

	"windtunnel/sessions"
)

// runChild runs this test binary as windtunnel with args and returns its exit status and
// output; it fails the test when the command has not ended within limit (a reader that
// loops over a range read from the file).
func runChild(t *testing.T, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v did not end within %v", args, limit)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// plantedSession writes a three-step session with evaluations, an event and a checkpoint,
// then runs the SQL statements on it.
func plantedSession(t *testing.T, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "planted.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "transformer", Steps: 3, Config: json.RawMessage(`{"task":"bijection"}`)},
		sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 3; s++ {
		ev := &sessions.Eval{BitErrorPosition: 0.5, ModelEntropy: []float64{1, 2}, BayesEntropy: []float64{1, 1.5}}
		w.Record(sessions.Record{Step: s, Loss: 1, State: sessions.Training, Eval: ev})
	}
	w.Event(sessions.Event{Step: 2, Kind: sessions.EventPause})
	w.Checkpoint(&sessions.Checkpoint{Step: 2, Params: []sessions.Tensor{{Name: "w", Shape: []int{1}, F32: []float32{1}}}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return path
}

// TestHostileSteps plants steps no run writes (issue 44, item 4): near the largest 64-bit
// integer (export's range loop once wrapped around and ran forever; replay waited for a
// first record with the error only in its log), negative, or not an integer, in records,
// events and checkpoints. Every reader refuses the file within seconds, on stderr, naming
// it and the table.
func TestHostileSteps(t *testing.T) {
	t.Parallel()
	readers := [][]string{
		{"export"}, {"export", "--format", "jsonl"}, {"export", "--what", "per-position"},
		{"export", "--what", "snapshots", "--format", "jsonl"}, {"export", "--what", "events"},
		{"info"}, {"info", "--json"}, {"replay"},
	}
	for _, c := range []struct{ name, stmt, table string }{
		{"record step near 2^63", `UPDATE records SET step = 9223372036854775000 WHERE step = 3`, "records"},
		{"record step negative", `UPDATE records SET step = -5 WHERE step = 1`, "records"},
		{"record step text", `UPDATE records SET step = 'x' WHERE step = 2`, "records"},
		{"record step real", `UPDATE records SET step = 2.5 WHERE step = 2`, "records"},
		{"event step near 2^63", `UPDATE events SET step = 9223372036854775000`, "events"},
		{"checkpoint step near 2^63", `UPDATE checkpoints SET step = 9223372036854775000`, "checkpoints"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := plantedSession(t, c.stmt)
			for _, args := range readers {
				code, _, errs := runChild(t, 30*time.Second, append(args, path)...)
				if code == 0 || !strings.Contains(errs, path) || !strings.Contains(errs, "not a windtunnel session") || !strings.Contains(errs, c.table) {
					t.Errorf("%v: exit %d, stderr %q: want a refusal naming the file and %s", args, code, errs, c.table)
				}
			}
		})
	}
}

// TestNonFiniteLoss plants a NaN (stored as NULL), +Inf and −Inf loss in the newest record
// (issue 44, item 4: info --json failed with "json: unsupported value"): info --json and
// a JSON Lines export write it as null, a CSV export as NaN, +Inf or -Inf.
func TestNonFiniteLoss(t *testing.T) {
	for _, c := range []struct{ name, value, csv string }{
		{"NaN", "NULL", "NaN"}, {"+Inf", "9e999", "+Inf"}, {"-Inf", "-9e999", "-Inf"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := plantedSession(t, `UPDATE records SET loss = `+c.value+`, wall_s = `+c.value+`, gpu_share = `+c.value+` WHERE step = 3`)
			code, out, errs := runCLI("info", "--json", path)
			var in map[string]any
			if code != 0 || json.Unmarshal([]byte(out), &in) != nil || in["last_loss"] != nil || in["wall_s"] != nil {
				t.Errorf("info --json: exit %d, %q %s: want last_loss and wall_s null", code, out, errs)
			}
			code, out, errs = runCLI("export", "--format", "jsonl", path)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var last map[string]any
			// The reader takes a GPU share that is not a number (NULL) as 0 (no GPU).
			if code != 0 || len(lines) != 3 || json.Unmarshal([]byte(lines[2]), &last) != nil || last["loss"] != nil || last["wall_s"] != nil ||
				(c.value != "NULL" && last["gpu_share"] != nil) {
				t.Errorf("export --format jsonl: exit %d, %q %s: want 3 lines, the last with loss, wall_s and gpu_share null", code, out, errs)
			}
			code, out, errs = runCLI("export", path)
			rows := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || len(rows) != 4 || !strings.HasPrefix(rows[3], "3,"+c.csv+","+c.csv+",") {
				t.Errorf("export: exit %d, %q %s: want the row of step 3 to start 3,%s,%s,", code, out, errs, c.csv, c.csv)
			}
			if code, _, errs = runCLI("info", path); code != 0 || errs != "" {
				t.Errorf("info: exit %d: %s", code, errs)
			}
		})
	}
}
