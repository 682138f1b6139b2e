//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"windtunnel/sessions"
)

// endlessRun is a run far too long to end by itself within a test (thousands of steps a
// second), tiny so that it starts and stops at once.
var endlessRun = []string{"run", "--headless", "--task", "bijection", "--v", "4", "--layers", "1", "--heads", "1",
	"--width", "8", "--batch", "8", "--probe", "16", "--eval-every", "100", "--checkpoint-every", "100000", "--steps", "50000000"}

// child is a windtunnel process started by a test.
type child struct {
	cmd    *exec.Cmd
	done   chan struct{}
	err    error // the exit, once done is closed
	path   string
	stderr string // the file its stderr goes to
}

// startChild starts windtunnel with args writing the session path; with ignoreHUP it
// starts with SIGHUP ignored, as nohup starts it.
func startChild(t *testing.T, path string, ignoreHUP bool, args ...string) *child {
	t.Helper()
	args = append(append([]string{}, args...), "--out", path)
	cmd := exec.Command(os.Args[0], args...)
	if ignoreHUP {
		// An ignored signal stays ignored across exec: the shell ignores SIGHUP, then
		// becomes windtunnel.
		cmd = exec.Command("/bin/sh", append([]string{"-c", `trap "" HUP; exec "$0" "$@"`, os.Args[0]}, args...)...)
	}
	cmd.Env = append(os.Environ(), childEnv+"=1")
	logs := t.TempDir()
	c := &child{cmd: cmd, done: make(chan struct{}), path: path, stderr: filepath.Join(logs, "stderr")}
	errf, err := os.Create(c.stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	cmd.Stderr = errf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = cmd.Wait(); close(c.done) }()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// lastRecord returns the newest record of the child's session (ok false when none yet).
func (c *child) lastRecord() (sessions.Record, bool) {
	r, err := sessions.Open(c.path)
	if err != nil {
		return sessions.Record{}, false
	}
	defer r.Close()
	rec, ok, err := r.At(-1)
	return rec, ok && err == nil
}

// waitStep waits until the session has a record past step, or fails after d.
func (c *child) waitStep(t *testing.T, step int, d time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if rec, ok := c.lastRecord(); ok && rec.Step > step {
			return rec.Step
		}
		select {
		case <-c.done:
			t.Fatalf("the run ended (%v) before step %d:\n%s", c.err, step+1, c.log())
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("no record past step %d within %s:\n%s", step, d, c.log())
	return 0
}

// wait waits for the child to exit, or fails after d.
func (c *child) wait(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-c.done:
		if c.err != nil {
			t.Errorf("exit: %v\n%s", c.err, c.log())
		}
	case <-time.After(d):
		t.Fatalf("still running %s after the signal:\n%s", d, c.log())
	}
}

// log is the end of what the child wrote to stderr.
func (c *child) log() string {
	b, _ := os.ReadFile(c.stderr)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// ignoresHUP reads from /proc whether the process ignores SIGHUP (ok false without /proc).
func ignoresHUP(pid int) (ignored, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(l, "SigIgn:"); found {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(syscall.SIGHUP)-1)) != 0, err == nil
		}
	}
	return false, false
}

// TestSIGHUP runs `windtunnel run --headless` in a child process and hangs it up. Started
// with SIGHUP ignored (nohup) it keeps it ignored and keeps training, and SIGTERM still
// stops it cleanly; started plainly, SIGHUP stops it cleanly. A clean stop records the run
// as interrupted (never "stopped by operator") and leaves the session one file.
func TestSIGHUP(t *testing.T) {
	if testing.Short() {
		t.Skip("trains in child processes for a few seconds")
	}
	t.Parallel()
	for _, ignored := range []bool{true, false} {
		t.Run(map[bool]string{true: "nohup", false: "plain"}[ignored], func(t *testing.T) {
			t.Parallel() // each its own child process and folder
			if !ignored && signal.Ignored(syscall.SIGHUP) {
				t.Skip("the test process ignores SIGHUP, so would its child")
			}
			dir := t.TempDir()
			c := startChild(t, filepath.Join(dir, "run.wtlab"), ignored, endlessRun...)
			step := c.waitStep(t, 0, 20*time.Second)
			if ign, ok := ignoresHUP(c.cmd.Process.Pid); ok && ign != ignored {
				t.Errorf("the run ignores SIGHUP: %v, want %v", ign, ignored)
			}
			t0 := time.Now()
			if err := c.cmd.Process.Signal(syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			if ignored {
				// Two commit intervals on, it must still be training.
				later := c.waitStep(t, step+1, 10*time.Second)
				for time.Since(t0) < 2*sessions.DefaultInterval {
					later = c.waitStep(t, later, 10*time.Second)
				}
				t.Logf("SIGHUP at step ≥ %d; still training at step %d %s later", step, later, time.Since(t0).Round(time.Millisecond))
				t0 = time.Now()
				if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			c.wait(t, 20*time.Second)
			t.Logf("exited %s after the stopping signal", time.Since(t0).Round(time.Millisecond))
			rec, ok := c.lastRecord()
			if !ok || rec.State != sessions.Stopped || rec.Message != "interrupted" {
				t.Errorf("last record %+v (%v), want state stopped, message interrupted", rec, ok)
			}
			if got := dirFiles(t, dir); !slices.Equal(got, []string{"run.wtlab"}) {
				t.Errorf("beside the session after the run: %v", got)
			}
		})
	}
}
