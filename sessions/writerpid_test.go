//go:build unix

package sessions

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWriterPid: a live writer's pid while the session is written, 0 once it is closed,
// and 0 for a lock file left behind naming a process that no longer exists.
func TestWriterPid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.wtlab")
	if got := WriterPid(path); got != 0 {
		t.Fatalf("no session: WriterPid = %d, want 0", got)
	}
	w, err := Create(path, testMeta(), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := WriterPid(path); got != os.Getpid() {
		t.Errorf("while writing: WriterPid = %d, want %d", got, os.Getpid())
	}
	if h := LockHolder(path); !h.Held || !h.Local || h.Host != hostName() {
		t.Errorf("while writing: holder %+v, want held here by this process", h)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := WriterPid(path); got != 0 {
		t.Errorf("closed: WriterPid = %d, want 0", got)
	}
	// A killed writer's lock file: its pid is gone (pid_max is below 1<<22 + 1 on Linux).
	if err := os.WriteFile(path+".lock", []byte("4194305\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := WriterPid(path); got != 0 {
		t.Errorf("stale lock file: WriterPid = %d, want 0", got)
	}
}

// TestWriterPidHostile (issue 50): a lock file's pid is the writer only while the lock is
// held, by a process of this host that has the lock file open. A killed writer's file whose
// pid now names a live, unrelated process (after pid reuse: a sleep started here, or this
// test process), one naming another host, one of an older version (no host) and one naming
// a process that is not the one holding the lock are never WriterPid, which callers signal.
func TestWriterPidHostile(t *testing.T) {
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Skip("no sleep to stand for an unrelated process:", err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	other, me, host := sleep.Process.Pid, os.Getpid(), hostName()
	cases := []struct {
		name     string
		text     string
		held     bool // the test holds the lock (on its own descriptor) while looking
		wantHeld bool
		wantPid  int // WriterPid
		linux    bool
	}{
		{"stale, names an unrelated live process", lockText(other, host), false, false, 0, false},
		{"stale, names this process", lockText(me, host), false, false, 0, false},
		{"stale, old format", strconv.Itoa(me) + "\n", false, false, 0, false},
		{"held, another host", lockText(me, host+"-elsewhere"), true, true, 0, false},
		{"held, no host (older version)", strconv.Itoa(me) + "\n", true, true, 0, false},
		{"held, garbage", "\x00\xffnot a pid\n", true, true, 0, false},
		// The holder is this process; the file names a process that does not have it open
		// (a new writer that has locked a killed writer's file but not yet written its pid).
		{"held, names a process not holding it", lockText(other, host), true, true, 0, true},
		{"held here by this process", lockText(me, host), true, true, me, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.linux && runtime.GOOS != "linux" {
				t.Skip("whether a process has the lock file open is told by /proc")
			}
			path := filepath.Join(t.TempDir(), "run.wtlab")
			if err := os.WriteFile(path+".lock", []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			if c.held {
				f, err := os.Open(path + ".lock")
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
					t.Fatal(err)
				}
			}
			h := LockHolder(path)
			if h.Held != c.wantHeld {
				t.Errorf("holder %+v: held %v, want %v", h, h.Held, c.wantHeld)
			}
			if got := WriterPid(path); got != c.wantPid {
				t.Errorf("WriterPid = %d, want %d (holder %+v)", got, c.wantPid, h)
			}
			if !c.held && (h.Pid != 0 || h.Local) {
				t.Errorf("a lock nobody holds: holder %+v, want none", h)
			}
		})
	}
	if err := sleep.Process.Signal(unix.Signal(0)); err != nil {
		t.Errorf("the unrelated process: %v", err)
	}
}

// TestLockHolderNeverRefusesAWriter: LockHolder's look at a lock (a shared flock for a
// moment) never makes a writer starting at that moment fail as if another run held it.
func TestLockHolderNeverRefusesAWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.wtlab")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					LockHolder(path)
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for i := range 200 {
		l, err := acquireLock(path)
		if err != nil {
			t.Fatalf("take %d: %v", i, err)
		}
		l.release()
	}
}
