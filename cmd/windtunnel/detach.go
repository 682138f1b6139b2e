package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// detachWait bounds how long run --detach waits for the background run to open its
// control socket (building the model and opening the device come first).
const detachWait = 2 * time.Minute

// runDetached starts the run described by the flags in the background: this program again
// (os.Executable) with the same flags, --headless instead of --detach and the session
// path made absolute, in its own session (setsid, so no terminal signal reaches it), stdin
// /dev/null, stdout and stderr appended to <session>.log. It waits until the run answers
// on its control socket, then prints its pid, session, log and how to attach. If the run
// dies first, the error carries the log's last lines.
func runDetached(ctx context.Context, f *runFlags, fs *pflag.FlagSet, stdout io.Writer) error {
	var session string
	if f.resume == "" {
		cfg, err := f.config(fs) // bad flags fail here, before anything starts
		if err != nil {
			return err
		}
		session = f.out
		if session == "" {
			session = defaultSessionPath(cfg, time.Now())
		} else if err := checkOutDir(session); err != nil {
			return err
		}
		if _, err := os.Stat(session); err == nil {
			return usagef("--out %s: the file exists (continue it with --resume)", session)
		}
	} else {
		var bad []string
		fs.Visit(func(fl *pflag.Flag) {
			if !resumeFlags[fl.Name] {
				bad = append(bad, "--"+fl.Name)
			}
		})
		if len(bad) > 0 {
			return usagef("--resume takes the run's settings from the session; %s cannot change them", strings.Join(bad, ", "))
		}
		session = f.resume
		if _, err := os.Stat(session); err != nil {
			return usagef("--resume: %v", err)
		}
	}
	session, err := filepath.Abs(session)
	if err != nil {
		return fmt.Errorf("run --detach: %w", err)
	}
	dir, err := relay.SocketDir()
	if err != nil {
		return fmt.Errorf("run --detach: %w", err)
	}
	socket := relay.SocketPath(dir, session)
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("run --detach: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(session), sessions.DirMode); err != nil {
		return fmt.Errorf("run --detach: %w", err)
	}
	logPath := sessions.LogPath(session)
	logf, err := sessions.OpenLog(logPath) // a link planted there is refused, not followed
	if err != nil {
		return fmt.Errorf("run --detach: %w", err)
	}
	defer logf.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("run --detach: %w", err)
	}
	defer null.Close()
	args := append([]string{"run"}, detachedArgs(fs, session, f.resume != "")...)
	fmt.Fprintf(logf, "windtunnel: %s detached: %s %s\n", time.Now().Format(time.RFC3339), exe, strings.Join(args, " "))
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run --detach: start %s: %w", exe, err)
	}
	pid := cmd.Process.Pid
	ctx, cancel := signalContext(ctx)
	defer cancel()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaps the child should it end while this process lives
	if err := awaitSocket(ctx, socket, pid, exited); err != nil {
		return fmt.Errorf("run --detach: %w\nlast lines of %s:\n%s", err, logPath, logTail(logPath, 12))
	}
	name := strings.TrimSuffix(filepath.Base(session), filepath.Ext(session))
	fmt.Fprintf(stdout, "windtunnel: running in the background, pid %d\n", pid)
	fmt.Fprintf(stdout, "  session  %s\n  log      %s\n  socket   %s\n", session, logPath, socket)
	fmt.Fprintf(stdout, "  attach   windtunnel attach %s\n", name)
	fmt.Fprintf(stdout, "  stop     stop from the attached dashboard, or kill %d (a clean stop: final evaluation and checkpoint)\n", pid)
	return nil
}

// detachedArgs are the flags the user set, but --detach, --headless and --out, then
// --headless, and the session: --out for a new run, --resume (absolute) for a resumed one.
func detachedArgs(fs *pflag.FlagSet, session string, resume bool) []string {
	var args []string
	fs.Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "detach", "headless", "out", "resume":
			return
		}
		v := fl.Value.String()
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ",")
		}
		args = append(args, "--"+fl.Name+"="+v)
	})
	args = append(args, "--headless")
	if resume {
		return append(args, "--resume="+session)
	}
	return append(args, "--out="+session)
}

// awaitSocket waits until the run with pid answers on socket, the run exits, ctx ends
// (the run is then stopped) or detachWait passes.
func awaitSocket(ctx context.Context, socket string, pid int, exited <-chan error) error {
	deadline := time.NewTimer(detachWait)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		h, err := relay.Probe(pctx, socket)
		cancel()
		if err == nil && h.Pid == pid {
			return nil
		}
		select {
		case err := <-exited:
			if err == nil {
				err = errors.New("exit status 0")
			}
			return fmt.Errorf("the background run ended before it opened its control socket (%v)", err)
		case <-ctx.Done():
			syscall.Kill(pid, syscall.SIGTERM)
			return fmt.Errorf("interrupted while the background run was starting (pid %d stopped)", pid)
		case <-deadline.C:
			return fmt.Errorf("the background run (pid %d) did not open its control socket %s within %v; it may still be starting", pid, socket, detachWait)
		case <-tick.C:
		}
	}
}

// logTail returns the last n lines of the file at path (at most 8 KiB of it).
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	defer f.Close()
	const most = 8 << 10
	if st, err := f.Stat(); err == nil && st.Size() > most {
		f.Seek(st.Size()-most, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
