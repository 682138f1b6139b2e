package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"windtunnel/sessions"
)

// ioctl applies an ioctl to f without taking it out of the poller (so that closing f while
// a Read waits really closes it: that is how the tests hang the terminal up).
func ioctl(t *testing.T, f *os.File, req uintptr, arg unsafe.Pointer) {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	}); err != nil {
		t.Fatal(err)
	}
	if errno != 0 {
		t.Fatalf("ioctl %#x: %v", req, errno)
	}
}

// openPTY opens a pseudo-terminal of 80×24 and returns its master and its terminal end.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no pseudo-terminals:", err)
	}
	var unlock int32
	ioctl(t, master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	var n uint32
	ioctl(t, master, syscall.TIOCGPTN, unsafe.Pointer(&n))
	ws := [4]uint16{24, 80, 0, 0} // rows, columns
	ioctl(t, master, syscall.TIOCSWINSZ, unsafe.Pointer(&ws))
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skip("no pseudo-terminals:", err)
	}
	return master, tty
}

// screen collects what a child wrote to its terminal.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen shows text, or fails after d.
func (s *screen) waitFor(t *testing.T, text string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !strings.Contains(s.String(), text) {
		if time.Now().After(deadline) {
			out := s.String()
			t.Fatalf("the terminal never showed %q; its last output:\n%q", text, out[max(len(out)-1500, 0):])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dashChild is a windtunnel run with its dashboard on a pseudo-terminal, in a child process.
type dashChild struct {
	*child
	master *os.File // the terminal's other end: typing, reading, closing it hangs up
	scr    *screen  // what the child wrote to the terminal
}

// startDashboard starts windtunnel with args (and env added to the test's) in a child
// process whose stdin, stdout and stderr are a new 80×24 pseudo-terminal, its controlling
// terminal in a session of its own, so that closing the master hangs the terminal up and
// the kernel sends the child SIGHUP. With ignoreHUP it starts with SIGHUP ignored, as nohup
// starts it. It answers the terminal queries of the dashboard as a terminal would.
func startDashboard(t *testing.T, path string, ignoreHUP bool, args []string, env ...string) *dashChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	if ignoreHUP {
		cmd = exec.Command("/bin/sh", append([]string{"-c", `trap "" HUP; exec "$0" "$@"`, os.Args[0]}, args...)...)
	}
	master, tty := openPTY(t)
	t.Cleanup(func() { master.Close() })
	cmd.Env = append(append(os.Environ(), childEnv+"=1", "TERM=xterm-256color"), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	d := &dashChild{child: &child{cmd: cmd, done: make(chan struct{}), path: path}, master: master, scr: &screen{}}
	go func() { d.err = cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		select {
		case <-d.done:
		default:
			cmd.Process.Kill()
			<-d.done
		}
	})
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			d.scr.Write(b[:n])
			// Answer the terminal queries (background colour, cursor position) as a
			// terminal would, or the dashboard waits seconds for them at start.
			if bytes.Contains(b[:n], []byte("\x1b]11;?")) {
				master.Write([]byte("\x1b]11;rgb:0000/0000/0000\x1b\\"))
			}
			if bytes.Contains(b[:n], []byte("\x1b[6n")) {
				master.Write([]byte("\x1b[1;1R"))
			}
			if err != nil {
				return
			}
		}
	}()
	return d
}

// press types k on the terminal.
func (d *dashChild) press(t *testing.T, k string) {
	t.Helper()
	if _, err := d.master.Write([]byte(k)); err != nil {
		t.Fatal(err)
	}
}

// TestDashboardQuit runs `windtunnel run` with its dashboard on a pseudo-terminal in a
// child process and ends it each way: q s stops the run (recorded as stopped by the
// operator); q d detaches (the run goes on in the process, which says so) and then hanging
// up the terminal leaves it training, until SIGTERM stops it, interrupted; hanging up with
// the dashboard open stops it, interrupted; hanging up a run started with SIGHUP ignored
// leaves it training, until SIGTERM stops it, interrupted.
func TestDashboardQuit(t *testing.T) {
	if testing.Short() {
		t.Skip("trains in child processes for a few seconds")
	}
	t.Parallel()
	dashRun := slices.DeleteFunc(slices.Clone(endlessRun), func(s string) bool { return s == "--headless" })
	for _, c := range []struct {
		name      string
		ignoreHUP bool
		keys      []string // typed in turn once the dashboard is up
		hangup    bool     // then the terminal closes
		goesOn    bool     // the run trains on after the keys and the hangup (SIGTERM then)
		message   string   // of the last record
	}{
		{name: "stop", keys: []string{"q", "s"}, message: "stopped by operator"},
		{name: "detach then hangup", keys: []string{"q", "d"}, hangup: true, goesOn: true, message: "interrupted"},
		{name: "paused resume and detach", keys: []string{"p", "q", "r"}, hangup: true, goesOn: true, message: "interrupted"},
		{name: "hangup", hangup: true, message: "interrupted"},
		{name: "nohup hangup", ignoreHUP: true, hangup: true, goesOn: true, message: "interrupted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each its own child process, terminal and folder
			if c.hangup && !c.ignoreHUP && signal.Ignored(syscall.SIGHUP) {
				t.Skip("the test process ignores SIGHUP (started under nohup), so would its child")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "run.wtlab")
			ch := startDashboard(t, path, c.ignoreHUP, append(slices.Clone(dashRun), "--out", path))
			scr := ch.scr
			start := time.Now()
			scr.waitFor(t, "LIVE", 20*time.Second)
			step := ch.waitStep(t, 0, 20*time.Second)
			t.Logf("dashboard up and the first records committed in %s", time.Since(start).Round(time.Millisecond))
			paused := false
			for _, k := range c.keys {
				ch.press(t, k)
				switch {
				case k == "p":
					step, paused = waitState(t, ch.child, sessions.Paused, 20*time.Second).Step, true
				case k == "q" && paused:
					scr.waitFor(t, fmt.Sprintf("The run is paused at step %d of", step), 10*time.Second)
					scr.waitFor(t, "[r] resume and detach", 10*time.Second)
				case k == "q":
					scr.waitFor(t, "The run is still training.", 10*time.Second)
				case k == "d" || k == "r":
					scr.waitFor(t, "detached: run continues in this process", 10*time.Second)
					step = ch.waitStep(t, step+1, 10*time.Second) // training (resumed by r)
				}
			}
			t0 := time.Now()
			if c.hangup {
				ch.master.Close()
			}
			if c.goesOn {
				later := ch.waitStep(t, step, 10*time.Second)
				for time.Since(t0) < 2*sessions.DefaultInterval {
					later = ch.waitStep(t, later, 10*time.Second)
				}
				t.Logf("hung up at step ≥ %d, still training at step %d %s later", step, later, time.Since(t0).Round(time.Millisecond))
				t0 = time.Now()
				ch.cmd.Process.Signal(syscall.SIGTERM)
			}
			select {
			case <-ch.done:
				t.Logf("exited (%v) %s after the last action", ch.err, time.Since(t0).Round(time.Millisecond))
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30 s after the last action; terminal:\n%q", scr.String())
			}
			if !c.hangup && ch.err != nil {
				t.Errorf("exit: %v", ch.err)
			}
			rec, ok := ch.lastRecord()
			if !ok || rec.State != sessions.Stopped || rec.Message != c.message {
				t.Errorf("last record: state %q, message %q (%v); want stopped, %q", rec.State, rec.Message, ok, c.message)
			}
			evs, ok := ch.events()
			if stops := countStops(evs); ok && (stops == 1) != (c.message == "stopped by operator") {
				t.Errorf("%d stop events recorded", stops)
			}
		})
	}
}

// events returns the operator events of the child's session.
func (c *child) events() ([]sessions.Event, bool) {
	r, err := sessions.Open(c.path)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	evs, err := r.Events(-1)
	return evs, err == nil
}

// countStops counts the stop events.
func countStops(evs []sessions.Event) int {
	n := 0
	for _, e := range evs {
		if e.Kind == sessions.EventStop {
			n++
		}
	}
	return n
}
