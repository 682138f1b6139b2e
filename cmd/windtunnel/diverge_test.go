package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"windtunnel/lab/launch"

	"windtunnel/sessions"
)

// TestDivergedRunKeepsRecords runs, in a child process, a tiny bijection run whose loss turns
// NaN within a few steps (issue 44, item 1: learning rate 10, no clipping, no warm-up,
// q/k and value rates ×100), evaluating every second step so that its last evaluations are
// NaN. Before, the NaN evaluation failed the session writer's commit: the session held 0
// records (ls: interrupted 0/60) and the summary said "failed after 12 steps (0.0 s): bit
// error (a) 0.0000". Now every step before the failure is recorded, a failed record at the
// step whose loss was not finite says why, info --json reads it (NaN as null), and the exit
// line and summary give the failure, the wall time and the last evaluation at its step.
func TestDivergedRunKeepsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nan.wtlab")
	args := append(append([]string{"run", "--headless", "--out", path}, tinyRun...),
		"--steps", "60", "--lr", "10", "--clip", "0", "--warmup", "0", "--qk-lr", "100", "--value-lr", "100",
		"--probe-every", "0", "--eval-every", "2")
	code, stdout, stderr := runChild(t, 2*time.Minute, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (diverged):\n%s", code, stderr)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := r.Records(0, 1000)
	r.Close()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%d records (%v):\n%s", len(recs), err, stderr)
	}
	last := recs[len(recs)-1]
	n := last.Step - 1 // steps trained before the one whose loss was not finite
	want := fmt.Sprintf("loss is NaN at step %d", last.Step)
	if last.State != sessions.Failed || !math.IsNaN(last.Loss) || !strings.HasPrefix(last.Message, want) {
		t.Fatalf("last record %+v, want failed with a NaN loss and %q", last, want)
	}
	var evalStep int
	for i, rec := range recs[:len(recs)-1] {
		if rec.State != sessions.Training || rec.Step > n {
			t.Errorf("record %d: step %d state %s, want training at a step ≤ %d", i, rec.Step, rec.State, n)
		}
		if rec.Eval != nil && len(rec.Eval.Ablated) == 0 {
			evalStep = rec.Step
		}
	}
	if steps := map[int]bool{}; true {
		for _, rec := range recs {
			steps[rec.Step] = true
		}
		for s := 1; s <= n+1; s++ {
			if !steps[s] {
				t.Errorf("no record at step %d", s)
			}
		}
	}
	if evalStep == 0 {
		t.Fatal("no evaluation recorded")
	}
	var s launch.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("summary %q: %v", stdout, err)
	}
	if s.State != "failed" || s.Steps != n || s.WallS <= 0 || s.EvalStep != evalStep || !strings.HasPrefix(s.Message, want) {
		t.Errorf("summary state %q steps %d wall %v eval_step %d message %q; want failed, %d, > 0, %d, %q",
			s.State, s.Steps, s.WallS, s.EvalStep, s.Message, n, evalStep, want)
	}
	line := fmt.Sprintf("windtunnel: failed after %d steps (", n)
	if !strings.Contains(stderr, line) || !strings.Contains(stderr, "s): "+want) ||
		!strings.Contains(stderr, fmt.Sprintf("; last evaluation (step %d): bit error (a) ", evalStep)) {
		t.Errorf("exit line lacks %q…%q and the last evaluation at step %d:\n%s", line, want, evalStep, stderr)
	}
	code, out, errs := runCLI("info", "--json", path)
	var in struct {
		State    string   `json:"state"`
		LastStep int      `json:"last_step"`
		LastLoss *float64 `json:"last_loss"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &in) != nil || in.State != "failed" || in.LastStep != last.Step || in.LastLoss != nil {
		t.Errorf("info --json: exit %d, %+v (want failed at step %d, loss null): %s%s", code, in, last.Step, out, errs)
	}
}

// TestFailedRunEvalNull (issue 50 item 2): a run that diverges before its first evaluation
// printed "eval" with every score 0 — bit error 0, KL 0: a perfect score to a script. Now
// eval is null and eval_step 0.
func TestFailedRunEvalNull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nan.wtlab")
	args := append(append([]string{"run", "--json", "--out", path}, tinyRun...),
		"--steps", "60", "--lr", "10", "--clip", "0", "--warmup", "0", "--qk-lr", "100", "--value-lr", "100",
		"--probe-every", "0", "--eval-every", "1000")
	code, stdout, stderr := runChild(t, 2*time.Minute, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (diverged):\n%s", code, stderr)
	}
	var s map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("summary %q: %v", stdout, err)
	}
	if string(s["state"]) != `"failed"` || string(s["eval"]) != "null" || string(s["eval_step"]) != "0" {
		t.Errorf("state %s, eval %s, eval_step %s; want failed, null, 0", s["state"], s["eval"], s["eval_step"])
	}
}
