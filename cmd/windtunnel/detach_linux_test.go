package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"windtunnel/lab/launch"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// TestDashboardDetachHangup: `windtunnel run` with its dashboard on a pseudo-terminal, q d,
// then the terminal hangs up (the kernel sends SIGHUP, as for a dropped SSH connection):
// the run, paused, stays paused (the dialog and the message say so, not that it trains)
// until resumed, then trains on to its planned end and ls shows it done. Meanwhile the process ignores
// SIGHUP, holds no descriptor on the terminal (stdin /dev/null, stdout and stderr the
// session's log) and answers on its control socket. To leave the keys time whatever the
// machine's speed, the test pauses the run through the socket as soon as it opens and
// resumes it, through the socket too, after the hang-up.
func TestDashboardDetachHangup(t *testing.T) {
	if testing.Short() {
		t.Skip("trains in a child process for a few seconds")
	}
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("the test process ignores SIGHUP (started under nohup), so would its child")
	}
	const steps = 4000
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the child's control socket, and ls's
	dir := t.TempDir()
	path := filepath.Join(dir, "run.wtlab")
	args := slices.DeleteFunc(slices.Clone(endlessRun), func(s string) bool { return s == "--headless" })
	args = append(args, "--steps", fmt.Sprint(steps), "--out", path) // the last --steps counts
	ch := startDashboard(t, path, false, args)
	pid := ch.cmd.Process.Pid

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	socket := ""
	for deadline := time.Now().Add(20 * time.Second); socket == ""; time.Sleep(20 * time.Millisecond) {
		if row, ok := lsJSON(t, dir, path); ok && row.Socket != "" {
			socket = row.Socket
		} else if time.Now().After(deadline) {
			t.Fatalf("ls shows no control socket for the run within 20 s; terminal:\n%q", ch.scr.String())
		}
	}
	ctl, err := relay.Dial(ctx, socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	if err := ctl.Send(ctx, sessions.Event{Kind: sessions.EventPause}); err != nil {
		t.Fatal(err)
	}
	paused := waitState(t, ch.child, sessions.Paused, 20*time.Second)
	if paused.Step >= steps {
		t.Fatalf("the run reached step %d before the pause: raise steps", paused.Step)
	}
	ch.scr.waitFor(t, "LIVE", 20*time.Second)
	ch.press(t, "q")
	// The dialog says the run is paused (not "still training") and offers to resume it.
	ch.scr.waitFor(t, fmt.Sprintf("The run is paused at step %d of %d.", paused.Step, steps), 10*time.Second)
	ch.scr.waitFor(t, "run.wtlab.log", 10*time.Second) // the dialog says where the output goes
	ch.press(t, "d")
	ch.scr.waitFor(t, fmt.Sprintf("detached: run stays paused at step %d", paused.Step), 10*time.Second)
	ch.scr.waitFor(t, "ctrl+z then bg gives this shell back", 10*time.Second)
	waitReleased(t, pid, path, 10*time.Second)
	if ign, ok := ignoresHUP(pid); ok && !ign {
		t.Error("the detached run does not ignore SIGHUP")
	}
	t0 := time.Now()
	ch.master.Close() // the hang-up
	time.Sleep(2 * sessions.DefaultInterval)
	select {
	case <-ch.done:
		t.Fatalf("the detached run exited (%v) %s after the hang-up; log:\n%s", ch.err, time.Since(t0).Round(time.Millisecond), launch.LogTail(path+".log", 12))
	default:
	}
	if row, ok := lsJSON(t, dir, path); !ok || row.Pid != pid || row.Socket != socket {
		t.Errorf("ls after the hang-up: %+v (found %v), want the run live as pid %d", row, ok, pid)
	}
	if err := ctl.Send(ctx, sessions.Event{Kind: sessions.EventResume}); err != nil {
		t.Fatalf("resume through the socket after the hang-up: %v", err)
	}
	select {
	case <-ch.done:
		t.Logf("exited (%v) %s after the hang-up", ch.err, time.Since(t0).Round(time.Millisecond))
	case <-time.After(90 * time.Second):
		t.Fatalf("still running 90 s after the hang-up; log:\n%s", launch.LogTail(path+".log", 12))
	}
	if ch.err != nil {
		t.Errorf("exit: %v", ch.err)
	}
	row, ok := lsJSON(t, dir, path)
	if !ok || row.State != string(sessions.Done) || row.Pid != 0 || row.Step != steps {
		t.Errorf("ls after the run: %+v (found %v), want done at step %d", row, ok, steps)
	}
	b, err := os.ReadFile(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"detached from its terminal", fmt.Sprintf("step %d/%d", steps, steps), "windtunnel: done after"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the log lacks %q:\n%s", want, launch.LogTail(path+".log", 12))
		}
	}
	// As a run --detach's log: clean lines (no terminal codes) and the summary's JSON line.
	if strings.ContainsAny(string(b), "\r\x1b") {
		t.Errorf("the log holds terminal codes (\\r or ESC):\n%q", launch.LogTail(path+".log", 6))
	}
	var sum launch.Summary
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &sum) == nil && sum.Session == path {
			found = true
		}
	}
	if !found || sum.State != string(sessions.Done) || sum.Steps != steps {
		t.Errorf("the log's summary: %+v (found %v), want done after %d steps:\n%s", sum, found, steps, launch.LogTail(path+".log", 6))
	}
}

// waitState waits until the newest record of c's session has state s, or fails after d.
func waitState(t *testing.T, c *child, s sessions.State, d time.Duration) sessions.Record {
	t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if rec, ok := c.lastRecord(); ok && rec.State == s {
			return rec
		}
		if time.Now().After(deadline) {
			rec, _ := c.lastRecord()
			t.Fatalf("no %s record within %s; the newest: %+v", s, d, rec)
		}
	}
}

// waitReleased waits until no descriptor of process pid refers to a terminal, stdin reads
// /dev/null and stdout and stderr are session's log, or fails after d.
func waitReleased(t *testing.T, pid int, session string, d time.Duration) {
	t.Helper()
	var held []string
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			t.Skip("no /proc:", err)
		}
		held = held[:0]
		for _, fd := range fds {
			target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if err != nil {
				continue
			}
			want := map[string]string{"0": os.DevNull, "1": session + ".log", "2": session + ".log"}[fd.Name()]
			if strings.HasPrefix(target, "/dev/pts/") || target == "/dev/tty" || (want != "" && target != want) {
				held = append(held, fd.Name()+" → "+target)
			}
		}
		if len(held) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s after detaching the run still holds %v", d, held)
		}
	}
}
