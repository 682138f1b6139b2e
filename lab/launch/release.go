package launch

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"windtunnel/sessions"
)

// IgnoreHangup makes this process ignore SIGHUP from now on: the hang-up of a terminal it
// no longer uses (a dropped SSH connection, a closed window, tmux kill-session) must not
// end a run that goes on in it. It undoes a signal context's SIGHUP; SIGINT and SIGTERM still
// stop the run cleanly.
func IgnoreHangup() { signal.Ignore(syscall.SIGHUP) }

// ReleaseTerminal lets go of the terminal this process was started on, so that a run going
// on in it after its dashboard closed is as independent of the terminal as one started
// with run --detach: stdin reads /dev/null, and stdout and stderr append to the log at
// logPath (a link planted there is refused, as by run --detach). No descriptor of the
// process refers to the terminal afterwards (so it does not hold an SSH connection open
// either); call IgnoreHangup first. What this process writes to os.Stdout and os.Stderr
// afterwards goes to the log.
func ReleaseTerminal(logPath string) error {
	logf, err := sessions.OpenLog(logPath)
	if err != nil {
		return fmt.Errorf("release the terminal: %w", err)
	}
	defer logf.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("release the terminal: %w", err)
	}
	defer null.Close()
	for _, d := range []struct {
		from *os.File
		to   int
	}{{null, 0}, {logf, 1}, {logf, 2}} {
		if err := dupOnto(d.from, d.to); err != nil {
			return fmt.Errorf("release the terminal: descriptor %d onto %s: %w", d.to, d.from.Name(), err)
		}
	}
	return nil
}

// dupOnto makes descriptor fd refer to what f is open on (dup2), closing what fd was.
func dupOnto(f *os.File, fd int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var derr error
	if err := rc.Control(func(from uintptr) {
		for {
			derr = unix.Dup2(int(from), fd)
			if derr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return derr
}
