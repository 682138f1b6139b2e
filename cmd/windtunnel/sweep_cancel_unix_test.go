//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"windtunnel/lab/sweep"
	"windtunnel/sessions"
)

// TestSweepCancelLocal (issue 44 item 15): `sweep cancel DIR` stops a local sweep running in
// another process — its engine and its running point stop cleanly (the point stopped with a
// checkpoint at the step it reached), the point done stays done, nothing more starts — and
// cancelling it again finds nothing to cancel. There was no sweep cancel.
func TestSweepCancelLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a sweep")
	}
	t.Parallel() // its own child processes and folders
	dir := filepath.Join(t.TempDir(), "sw")
	// Point 0 ends at once; point 1 would train for hours; point 2 waits its turn.
	args := append([]string{"sweep", "--local", "--out", dir, "--set", "steps=60,50000000,50000001", "--set", "checkpoint-every=100000"}, tinySets("checkpoint-every")...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	logf, err := os.Create(filepath.Join(t.TempDir(), "sweep.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	log := func() string { b, _ := os.ReadFile(logf.Name()); return string(b) }
	var m *sweep.Manifest
	waitFor(t, 2*time.Minute, "point 1 training", func() bool {
		if m == nil {
			m, _ = sweep.Read(dir)
			return false
		}
		st := m.Status(nil)
		return st[0].State == sweep.Done && st[1].State == sweep.Running && st[1].Step > 0
	})
	if pid := m.EnginePid(); pid != cmd.Process.Pid {
		t.Errorf("engine pid %d, want the sweep's %d", pid, cmd.Process.Pid)
	}
	code, out, errs := runCLI("sweep", "cancel", dir)
	if code != 0 || !strings.Contains(out, "stopping the local engine") || !strings.Contains(out, "1/3 done, 0 running, 0 failed, 1 stopped, 1 left") {
		t.Errorf("sweep cancel: exit %d\n%s%s", code, out, errs)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("the sweep still runs a minute after sweep cancel:\n%s", log())
	}
	// The engine names the cancelled point as sweep status does: stopped, not failed.
	if l := log(); !strings.Contains(l, "1/3 done, 0 running, 0 failed, 1 stopped, 1 left") || strings.Contains(l, "1 failed") {
		t.Errorf("the engine's tally after cancel, want 1 stopped and none failed:\n%s", l)
	}
	st := m.Status(nil)
	if st[0].State != sweep.Done || st[1].State != sweep.Stopped || st[2].State != sweep.Missing {
		t.Errorf("after cancel: %s, %s, %s; want done, stopped, missing\n%s", st[0].State, st[1].State, st[2].State, log())
	}
	r, err := sessions.Open(m.SessionPath(m.Points[1]))
	if err != nil {
		t.Fatal(err)
	}
	cks, _ := r.Checkpoints()
	last, _, _ := r.At(-1)
	r.Close()
	if len(cks) == 0 || cks[len(cks)-1] != last.Step || last.Eval == nil {
		t.Errorf("the cancelled point: checkpoints %v, last record at %d (eval %v): want a final checkpoint and evaluation", cks, last.Step, last.Eval != nil)
	}
	if code, out, _ := runCLI("sweep", "cancel", dir); code != 0 || !strings.Contains(out, "nothing to cancel") {
		t.Errorf("cancel again: exit %d %q", code, out)
	}
}

// TestSweepCancelJustStarted (issue 50): sweep cancel of a point that has just started —
// its run still starting (only its log written) or setting up (its session's lock taken,
// its trainer being built) — leaves the point stopped or not started, to be resumed, never
// failed with a line of its log as the reason: the run takes SIGTERM as a clean stop from
// before it takes its lock, and the engine counts a run its SIGTERM ended before the run
// could handle it as stopped.
func TestSweepCancelJustStarted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a sweep")
	}
	cases := []struct {
		name  string
		ready func(m *sweep.Manifest) bool
	}{
		{"run starting", func(m *sweep.Manifest) bool {
			_, err := os.Stat(m.LogPath(m.Points[0]))
			return err == nil
		}},
		{"run setting up", func(m *sweep.Manifest) bool { return sessions.LockHolder(m.SessionPath(m.Points[0])).Held }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sw")
			args := append([]string{"sweep", "--local", "--out", dir, "--set", "steps=50000000", "--set", "checkpoint-every=100000"}, tinySets("checkpoint-every")...)
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), childEnv+"=1")
			var log strings.Builder
			cmd.Stdout, cmd.Stderr = &log, &log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() { cmd.Process.Kill() })
			var m *sweep.Manifest
			deadline := time.Now().Add(time.Minute)
			for m == nil || !c.ready(m) {
				if time.Now().After(deadline) {
					t.Fatal("the point did not start within a minute")
				}
				if m == nil {
					m, _ = sweep.Read(dir)
				}
				time.Sleep(time.Millisecond)
			}
			code, out, errs := runCLI("sweep", "cancel", "--timeout", "30s", dir)
			if code != 0 {
				t.Errorf("sweep cancel: exit %d\n%s%s", code, out, errs)
			}
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("the sweep still runs a minute after sweep cancel")
			}
			st := m.Status(nil)[0]
			if st.State != sweep.Stopped && st.State != sweep.Missing {
				t.Errorf("the point cancelled as it started: %s (%s), want stopped or missing\nsweep:\n%s", st.State, st.Detail, log.String())
			}
			if strings.Contains(log.String(), "not finished") {
				t.Errorf("the engine reports the cancelled point as not finished:\n%s", log.String())
			}
		})
	}
}
