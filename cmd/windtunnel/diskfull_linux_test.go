package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"windtunnel/sessions"
)

// fsizeEnv asks the child (the test binary acting as windtunnel) to limit the size of the
// files it writes (RLIMIT_FSIZE, in bytes): past it every write fails with EFBIG (Go ignores
// SIGXFSZ), a disk that fills up, without root or a small file system.
const fsizeEnv = "WINDTUNNEL_TEST_FSIZE"

// asEnv asks the child to limit its address space (RLIMIT_AS, in bytes), as ulimit -v does.
const asEnv = "WINDTUNNEL_TEST_AS"

// limitChild sets the child's limits asked for by fsizeEnv and asEnv.
func limitChild() {
	for _, l := range []struct {
		env      string
		resource int
	}{{fsizeEnv, syscall.RLIMIT_FSIZE}, {asEnv, syscall.RLIMIT_AS}} {
		n, err := strconv.ParseUint(os.Getenv(l.env), 10, 64)
		if err != nil {
			continue
		}
		if err := syscall.Setrlimit(l.resource, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			panic(err)
		}
	}
}

// TestDiskFullStopsRun: when the session can no longer be written mid-run, the run stops
// (it does not train on unrecorded) with an error naming the file and the cause, and the
// file opens with every record committed before the fault, step after step from the first.
// Two faults: a file size limit (every write past 4 MiB fails with EFBIG: SQLite's "disk
// I/O error") and a 4 MiB tmpfs that fills up (ENOSPC: SQLITE_FULL, "database or disk is
// full"; only where the test may mount one, as root).
func TestDiskFullStopsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains until the disk is full")
	}
	t.Parallel() // its own child processes and folders
	for _, c := range []struct {
		name  string
		setup func(t *testing.T) (dir string, env []string)
		cause string
	}{
		{"file size limit", func(t *testing.T) (string, []string) {
			return t.TempDir(), []string{fsizeEnv + "=" + strconv.Itoa(4<<20)}
		}, "disk I/O error"},
		{"full tmpfs", func(t *testing.T) (string, []string) {
			dir := t.TempDir()
			if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
				t.Skipf("cannot mount a tmpfs here: %v", err)
			}
			t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
			return dir, nil
		}, "disk is full"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, env := c.setup(t)
			diskFault(t, filepath.Join(dir, "full.wtlab"), env, c.cause)
		})
	}
}

// diskFault runs a long run into path in a child with env, expects it to stop with cause
// and checks what the session kept.
func diskFault(t *testing.T, path string, env []string, cause string) {
	const steps = 50000
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append(append([]string{"run", "--headless", "--steps", itoa(steps), "--out", path}, tinyRun...), "--checkpoint-every", "25")
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the run did not stop within 90 s: %s", stderr.String())
	}
	if err == nil {
		t.Fatalf("the run succeeded on a full disk: %s", stderr.String())
	}
	msg := stderr.String()
	m := regexp.MustCompile(`run stopped at step (\d+): it can no longer be recorded: sessions: write ` + regexp.QuoteMeta(path) + `: .*` + regexp.QuoteMeta(cause)).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("stderr does not name the file and the cause (%s):\n%s", cause, msg)
	}
	stopped, _ := strconv.Atoi(m[1])
	t.Logf("stopped at step %d after %v:\n%s", stopped, time.Since(start).Round(time.Millisecond), msg)

	r, err := sessions.Open(path)
	if err != nil {
		t.Fatalf("the session does not open after the fault: %v", err)
	}
	defer r.Close()
	recs, err := r.Records(0, steps)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		t.Fatal("no record survived")
	}
	next := 1
	for _, rec := range recs {
		if rec.Step != next && rec.Step != next-1 { // an evaluation repeats its step
			t.Fatalf("records jump from step %d to %d", next-1, rec.Step)
		}
		next = rec.Step + 1
	}
	last := recs[len(recs)-1].Step
	if last > stopped || stopped >= steps {
		t.Errorf("last committed step %d, stopped at %d of %d", last, stopped, steps)
	}
	if ck, ok, err := r.Checkpoint(-1); err != nil || !ok || ck.Step > last {
		t.Errorf("last checkpoint %v %v: %v", ck, ok, err)
	}
	if err := readEverything(r); err != nil {
		t.Errorf("reading the session after the fault: %v", err)
	}
}

// readEverything runs the reader's other read paths.
func readEverything(r *sessions.Reader) error {
	if _, err := r.Events(-1); err != nil {
		return err
	}
	if _, _, err := r.Snapshot(-1); err != nil {
		return err
	}
	_, err := r.Evals(-1, 0)
	return err
}
