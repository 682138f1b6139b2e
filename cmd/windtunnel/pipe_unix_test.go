//go:build unix

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"windtunnel/sessions"
)

// TestRunOutlivesClosedPipe (issue 44 item 2): `run --headless … 2>&1 | head -2` — its
// output read by a process that stops reading after two lines — trains to the end: the
// run is not killed by SIGPIPE (it was, at its first write after the reader left: no final
// evaluation or checkpoint, the session left "training"), records its final evaluation and
// checkpoint and closes the session done; only the summary it could not print makes the
// exit status 1.
func TestRunOutlivesClosedPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a short run")
	}
	t.Parallel() // its own child processes and folders
	const steps = 300
	path := filepath.Join(t.TempDir(), "piped.wtlab")
	args := append(append([]string{"run", "--headless", "--steps", itoa(steps), "--out", path}, tinyRun...), "--eval-every", "25")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w // 2>&1 | head -2
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	br := bufio.NewReader(r)
	var head []string
	for len(head) < 2 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("read the run's output: %v after %q", err, head)
		}
		head = append(head, line)
	}
	r.Close() // head exits
	var exitErr error
	select {
	case exitErr = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("the run did not end within 3 minutes")
	}
	var ee *exec.ExitError
	if errors.As(exitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("the run was killed by %v once its output pipe closed (first lines %q)", ws.Signal(), head)
		}
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d, want 1 (the summary could not be printed)", code)
	}
	sr, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	last, ok, err := sr.At(-1)
	if err != nil || !ok || last.State != sessions.Done || last.Step != steps || last.Eval == nil {
		t.Errorf("last record %+v (ok %v, %v): want done at step %d with its final evaluation", last, ok, err, steps)
	}
	cks, err := sr.Checkpoints()
	if err != nil || len(cks) == 0 || cks[len(cks)-1] != steps {
		t.Errorf("checkpoints %v (%v): want the final one at step %d", cks, err, steps)
	}
	if !strings.Contains(head[0], "bijection transformer") {
		t.Errorf("first line %q", head[0])
	}
}
