package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"windtunnel/lab/launch"
	"windtunnel/sessions/index"

	"windtunnel/sessions"
)

// extendRun is a run of a few thousand steps a second whose cadences give checkpoints along
// an extension too (they are stored with the run and kept by --resume).
var extendRun = []string{"run", "--headless", "--task", "bijection", "--v", "4", "--layers", "1", "--heads", "1",
	"--width", "8", "--batch", "8", "--probe", "16", "--eval-every", "50", "--checkpoint-every", "50", "--probe-every", "0"}

// TestExtendKillResume extends a finished 120-step run with --resume --steps N in a child
// process, kills it with SIGKILL mid-way, and checks that the session records the plan of N
// steps (info, ls), that the old final record no longer reads as the run's end, and that a
// plain --resume continues to step N, where info and ls agree that the run is done.
func TestExtendKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("trains and kills a child run")
	}
	t.Parallel() // its own child processes and folders
	dir := t.TempDir()
	first := filepath.Join(dir, "first.wtlab")
	if code, _, errs := runCLI(append(append([]string{}, extendRun...), "--steps", "120", "--out", first)...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errs)
	}
	path := filepath.Join(dir, "extended.wtlab")
	planned := 0
	// The extension must outlast the writer's first commit (a second) to be seen and
	// killed mid-way; a machine fast enough to finish it first gets a longer one.
	for n := 8000; planned == 0; n *= 4 {
		if n > 512000 {
			t.Fatal("could not kill the extension mid-way")
		}
		copyFile(t, first, path)
		if extendAndKill(t, path, n) {
			planned = n
		}
	}

	in := infoJSON(t, path)
	if in.PlanSteps != planned || in.State == string(sessions.Done) || in.LastStep <= 120 || in.LastStep >= planned {
		t.Fatalf("killed extension: info says steps %d..%d of %d planned, state %s; want of %d planned, not done",
			in.FirstStep, in.LastStep, in.PlanSteps, in.State, planned)
	}
	if row, err := index.Read(path); err != nil || row.Steps != planned || row.State == "done" {
		t.Fatalf("killed extension: ls row %+v, %v; want %d steps planned, not done", row, err, planned)
	}
	if n := endRecords(t, path); n != 0 {
		t.Errorf("killed extension: %d records read as the end of the run, want none", n)
	}

	code, out, errs := runCLI("run", "--headless", "--resume", path)
	if code != 0 {
		t.Fatalf("plain --resume of the killed extension: exit %d: %s", code, errs)
	}
	var s launch.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Steps != planned {
		t.Fatalf("plain --resume: summary %q (%v), want %d steps", out, err, planned)
	}
	in = infoJSON(t, path)
	if in.PlanSteps != planned || in.LastStep != planned || in.State != string(sessions.Done) {
		t.Errorf("after the plain --resume: info says steps ..%d of %d planned, state %s; want %d of %d, done",
			in.LastStep, in.PlanSteps, in.State, planned, planned)
	}
	if row, err := index.Read(path); err != nil || row.State != "done" || row.Step != planned || row.Steps != planned {
		t.Errorf("after the plain --resume: ls row %+v, %v; want done at %d/%d", row, err, planned, planned)
	}
	if n := endRecords(t, path); n != 1 {
		t.Errorf("after the plain --resume: %d records read as the end of the run, want 1 (the last)", n)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := r.Records(120, 120)
	if err != nil {
		t.Fatal(err)
	}
	if last := recs[len(recs)-1]; last.State != sessions.Training || !strings.Contains(last.Message, "resumed") || last.Eval == nil {
		t.Errorf("the first run's final record: state %s, message %q, eval %v; want training, resumed, its evaluation kept",
			last.State, last.Message, last.Eval != nil)
	}
}

// extendAndKill runs --resume path --steps n in a child process and kills it with SIGKILL
// once its session shows a training record past step 170; it reports false when the child
// ended before that.
func extendAndKill(t *testing.T, path string, n int) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "run", "--headless", "--resume", path, "--steps", itoa(n))
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	c := &child{path: path}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return false
		case <-time.After(50 * time.Millisecond):
		}
		if rec, ok := c.lastRecord(); ok && rec.Step > 170 && rec.State == sessions.Training {
			cmd.Process.Kill()
			<-done
			return true
		}
	}
	cmd.Process.Kill()
	<-done
	t.Fatalf("the extension to %d steps showed no record past step 170 within 2 minutes", n)
	return false
}

// infoJSON is `windtunnel info --json path`.
func infoJSON(t *testing.T, path string) index.Info {
	t.Helper()
	code, out, errs := runCLI("info", "--json", path)
	if code != 0 {
		t.Fatalf("info: exit %d: %s", code, errs)
	}
	var in index.Info
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatalf("info --json: %v: %s", err, out)
	}
	return in
}

// endRecords counts the records of a session in a final state (done, stopped, failed).
func endRecords(t *testing.T, path string) int {
	t.Helper()
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	recs, err := r.Scalars(-1, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rec := range recs {
		switch rec.State {
		case sessions.Done, sessions.Stopped, sessions.Failed:
			n++
		}
	}
	return n
}

// copyFile copies a closed session (one file) to dst, replacing dst and what lies beside it.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	for _, p := range []string{dst, dst + "-wal", dst + "-shm", dst + ".lock"} {
		os.Remove(p)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
