//go:build unix

package sweep

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"windtunnel/sessions"
)

// holdEnv makes this test binary a process that holds a lock (TestHelperHoldLock).
const holdEnv = "WT_SWEEP_TEST_HOLD"

// TestHelperHoldLock is not a test: run with holdEnv set it is a writer holding that path's
// lock (sessions.Hold) until a signal ends it, as a run writing a point's session does.
func TestHelperHoldLock(t *testing.T) {
	path := os.Getenv(holdEnv)
	if path == "" {
		t.Skip("the lock holder of TestCancelOnlyHolders")
	}
	release, err := sessions.Hold(path)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	defer release()
	fmt.Println("held")
	time.Sleep(30 * time.Second)
	os.Exit(0)
}

// process is a child of the test and whether it has exited.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// start starts cmd (output of its first line awaited when wait is set), killed at cleanup.
func start(t *testing.T, cmd *exec.Cmd, wait bool) *process {
	t.Helper()
	var out *bufio.Reader
	if wait {
		r, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		out = bufio.NewReader(r)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	if wait {
		if line, err := out.ReadString('\n'); strings.TrimSpace(line) != "held" {
			t.Fatalf("lock holder: %q %v", line, err)
		}
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-p.done })
	return p
}

// holder starts a process of this host holding the lock of path.
func holder(t *testing.T, path string) *process {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	return start(t, cmd, true)
}

// holdAs holds path's lock on a descriptor of the test while the lock file names pid on
// host: what a run of another host sharing the folder leaves there.
func holdAs(t *testing.T, path string, pid int, host string) {
	t.Helper()
	lp := path + ".lock"
	if err := os.WriteFile(lp, []byte(fmt.Sprintf("%d\n%s\n", pid, host)), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(lp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
}

// TestCancelOnlyHolders (issue 50): sweep cancel signals only a process that holds a lock
// on this host. Lock files left by killed runs whose pid now names a live, unrelated process
// (the engine's and a point's) must not get it signalled, and show that point as not
// running, to be resumed; a point written by another host is named, not signalled, and
// shows as running; a real writer here is stopped and waited for; a point Slurm holds is
// cancelled with scancel, its run (here on this host) never signalled locally.
func TestCancelOnlyHolders(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip("no host name:", err)
	}
	bin := t.TempDir()
	scancelLog := filepath.Join(bin, "scancel.log")
	for name, body := range map[string]string{
		"squeue":  "echo '7_2|RUNNING'",
		"scancel": "echo \"$@\" >> " + scancelLog,
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, slurm := range []bool{false, true} {
		t.Run(fmt.Sprintf("slurm=%v", slurm), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sw")
			g, pts := testGrid(t, "1e-3", "3e-4")
			m, err := Prepare(dir, g, pts)
			if err != nil {
				t.Fatal(err)
			}
			if slurm {
				m.Jobs = []Job{{ID: "7", Indices: []int{2}}}
			}
			if err := m.Save(); err != nil {
				t.Fatal(err)
			}
			sleep := start(t, exec.Command("sleep", "30"), false) // an unrelated process
			stale := []byte(fmt.Sprintf("%d\n%s\n", sleep.cmd.Process.Pid, host))
			for i, step := range []int{40, 20, 10} {
				writeSession(t, m.SessionPath(pts[i]), 100, step, sessions.Stopped)
			}
			// Killed runs' lock files, their pids since reused by the sleep: a point's, and the
			// engine's of an older version (the pid alone).
			if err := os.WriteFile(m.SessionPath(pts[0])+".lock", stale, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(m.manifestPath()+".lock", []byte(strconv.Itoa(sleep.cmd.Process.Pid)+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			holdAs(t, m.SessionPath(pts[1]), sleep.cmd.Process.Pid, "node7.elsewhere")
			writer := holder(t, m.SessionPath(pts[2]))

			if pid := m.EnginePid(); pid != 0 {
				t.Errorf("EnginePid %d from a lock nobody holds, want 0", pid)
			}
			var q Queue
			if slurm {
				q = Queue{2: "RUNNING"}
			}
			sts := m.Status(q)
			want := []State{Stopped, Running, Running, Missing}
			for i, s := range sts {
				if s.State != want[i] {
					t.Errorf("point %d: %s (%s), want %s", i, s.State, s.Detail, want[i])
				}
			}
			if !strings.Contains(sts[1].Detail, "node7.elsewhere") {
				t.Errorf("point written elsewhere: detail %q, want its host", sts[1].Detail)
			}
			todo, _, _, err := m.Pending(q, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			var ix []int
			for _, p := range todo {
				ix = append(ix, p.Index)
			}
			if !slices.Equal(ix, []int{0, 3}) {
				t.Errorf("pending %v, want [0 3] (the stale lock's point resumes)", ix)
			}

			var out bytes.Buffer
			c := Canceller{Wait: 10 * time.Second}
			if slurm {
				c.Squeue, c.Scancel = filepath.Join(bin, "squeue"), filepath.Join(bin, "scancel")
			}
			if err := m.Cancel(context.Background(), c, &out); err != nil {
				t.Fatalf("cancel: %v\n%s", err, out.String())
			}
			time.Sleep(100 * time.Millisecond) // a stray SIGTERM would have ended the sleep by now
			if sleep.exited() {
				t.Errorf("the unrelated process named by stale and foreign lock files was killed by cancel:\n%s", out.String())
			}
			if !strings.Contains(out.String(), "node7.elsewhere") || strings.Contains(out.String(), "stopping the local engine") {
				t.Errorf("cancel said:\n%s", out.String())
			}
			if slurm {
				log, _ := os.ReadFile(scancelLog)
				if strings.TrimSpace(string(log)) != "7" || writer.exited() {
					t.Errorf("Slurm's point: scancel %q, its run exited %v; want scancel 7 and no local signal", log, writer.exited())
				}
				os.Remove(scancelLog)
				return
			}
			if !writer.exited() {
				t.Errorf("the point's writer (pid %d) still runs after cancel:\n%s", writer.cmd.Process.Pid, out.String())
			}
			if !strings.Contains(out.String(), "0/4 done, 1 running, 0 failed, 2 stopped, 1 left") {
				t.Errorf("cancel's tally: want the point written elsewhere running, the cancelled ones stopped, the rest left:\n%s", out.String())
			}
		})
	}
}

// TestStatusHeldNotSetAside (issue 50): a session whose lock is held is being written, even
// before it can be read (its run is creating it): running, never set aside as unreadable.
func TestStatusHeldNotSetAside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sw")
	g, pts := testGrid(t, "1e-3")
	m, err := Prepare(dir, g, pts)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	path := m.SessionPath(pts[0])
	if err := os.WriteFile(path, nil, 0o600); err != nil { // SQLite has not written it yet
		t.Fatal(err)
	}
	holdAs(t, path, os.Getpid(), "node7.elsewhere")
	todo, sts, notes, err := m.Pending(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if sts[0].State != Running || sts[0].Unreadable || len(notes) != 0 || len(todo) != 1 || todo[0].Index != 1 {
		t.Errorf("point 0: %s (%s), unreadable %v, notes %q, pending %d points; want running, left alone", sts[0].State, sts[0].Detail, sts[0].Unreadable, notes, len(todo))
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the session being written was moved: %v", err)
	}
}
