//go:build unix

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"windtunnel/sessions/index"

	"github.com/spf13/pflag"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// detachRun is a tiny run far too long to end by itself within the test.
var detachRun = []string{"run", "--detach", "--task", "bijection", "--v", "4", "--layers", "1", "--heads", "1", "--width", "8",
	"--batch", "8", "--probe", "16", "--eval-every", "100", "--checkpoint-every", "100000", "--steps", "50000000"}

// lsJSON runs `ls --json` on dir and returns the row of the session at path.
func lsJSON(t *testing.T, dir, path string) (index.Run, bool) {
	t.Helper()
	code, out, errs := runCLI("ls", "--json", "--dir", dir)
	if code != 0 {
		t.Fatalf("ls: exit %d: %s", code, errs)
	}
	var rows []index.Run
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	for _, r := range rows {
		if r.Path == path {
			return r, true
		}
	}
	return index.Run{}, false
}

// TestDetachAttach starts `run --detach`, finds it with ls, toggles a head through its
// control socket and sees the event from a second connection, stops it through the
// socket, and checks what the session recorded.
func TestDetachAttach(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a background run")
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, "detached.wtlab")

	if code, _, errs := runCLI(append(append([]string{}, detachRun...), "--steps", "-3")...); code != 2 || !strings.Contains(errs, "--steps") {
		t.Fatalf("a bad flag with --detach: exit %d, %s", code, errs)
	}
	code, out, errs := runCLI(append(append([]string{}, detachRun...), "--out", path)...)
	m := regexp.MustCompile(`pid (\d+)`).FindStringSubmatch(out + errs)
	pid := 0
	if m != nil {
		pid, _ = strconv.Atoi(m[1])
	}
	exited := false
	t.Cleanup(func() {
		if pid > 0 && !exited {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if code != 0 || pid == 0 {
		t.Fatalf("run --detach: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "windtunnel attach detached") || !strings.Contains(out, path+".log") {
		t.Errorf("run --detach does not say how to attach or where the log is:\n%s", out)
	}

	row, ok := lsJSON(t, dir, path)
	if !ok || row.State != "running" || row.Pid != pid || row.Socket == "" || row.Task != "bijection" {
		t.Fatalf("ls: %+v (found %v), want the run running as pid %d", row, ok, pid)
	}
	if r, err := sessions.Open(path); err != nil || r.Meta().Socket != row.Socket {
		t.Errorf("the session's meta does not name the socket %s: %v", row.Socket, err)
	} else {
		r.Close()
	}
	if code, _, errs := runCLI("attach", "nomatch"); code != 2 || !strings.Contains(errs, "detached") {
		t.Errorf("attach nomatch: exit %d, %s; want 2 listing the live run", code, errs)
	}
	if code, _, errs := runCLI("attach", "detach"); code != 2 || !strings.Contains(errs, "needs a terminal") {
		t.Errorf("attach detach (no terminal): exit %d, %s", code, errs)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sender, err := relay.Dial(ctx, row.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer sender.Close()
	watcher, err := relay.Dial(ctx, row.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	var mu sync.Mutex
	var events []sessions.Event
	end := make(chan sessions.State, 1)
	if err := watcher.Subscribe(-1, func(m relay.Message) {
		switch m.Type {
		case relay.TypeEvent:
			mu.Lock()
			events = append(events, *m.Event)
			mu.Unlock()
		case relay.TypeEnd:
			end <- m.State
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := sender.Send(ctx, sessions.Event{Kind: sessions.EventHead, Layer: 0, Head: 0, On: false}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(events)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second connection did not see the head event")
		}
	}
	if err := sender.Send(ctx, sessions.Event{Kind: sessions.EventStop}); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-end:
		if st != sessions.Stopped {
			t.Errorf("the run ended %q, want stopped", st)
		}
	case <-ctx.Done():
		t.Fatal("the run did not end after stop")
	}
	for deadline := time.Now().Add(time.Minute); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the background run did not exit after stop")
		}
	}
	exited = true

	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	evs, err := r.Events(-1)
	if err != nil || len(evs) != 2 || evs[0].Kind != sessions.EventHead || evs[0].Layer != 0 || evs[0].On || evs[1].Kind != sessions.EventStop {
		t.Errorf("session events %+v, %v; want the head switch and the stop", evs, err)
	}
	last, ok, err := r.At(-1)
	if err != nil || !ok || last.State != sessions.Stopped {
		t.Errorf("last record %+v, %v; want stopped", last, err)
	}
	if s := r.Meta().Socket; s != "" {
		t.Errorf("the ended run's meta still names its socket %s", s)
	}
	if row, ok := lsJSON(t, dir, path); !ok || row.State != "stopped" || row.Pid != 0 {
		t.Errorf("ls after the stop: %+v (found %v)", row, ok)
	}
}

// TestDetachedArgs: the background run gets the flags the user set, slices included, with
// --headless and the absolute session instead of --detach and --out.
func TestDetachedArgs(t *testing.T) {
	var f runFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.register(fs)
	fs.Bool("detach", false, "")
	if err := fs.Parse([]string{"--detach", "--task", "hmm", "--eval-k", "20,30", "--out", "x.wtlab", "--headless"}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(detachedArgs(fs, "/abs/x.wtlab", false), " ")
	if want := "--eval-k=20,30 --task=hmm --headless --out=/abs/x.wtlab"; got != want {
		t.Errorf("args %q, want %q", got, want)
	}
	fs = pflag.NewFlagSet("run", pflag.ContinueOnError)
	f.register(fs)
	fs.Parse([]string{"--resume", "x.wtlab", "--steps", "9"})
	if got := strings.Join(detachedArgs(fs, "/abs/x.wtlab", true), " "); got != "--steps=9 --headless --resume=/abs/x.wtlab" {
		t.Errorf("resume args %q", got)
	}
}
