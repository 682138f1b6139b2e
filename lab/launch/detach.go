package launch

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

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// detachWait bounds how long StartBackground waits for the background run to open its
// control socket (building the model and opening the device come first).
const detachWait = 2 * time.Minute

// Background is a run started in the background: its process, log and control socket.
type Background struct {
	Pid         int
	Log, Socket string
}

// StartBackground starts exe with args (a run writing session, an absolute path) in the
// background: in its own session (setsid, so no terminal signal reaches it), stdin
// /dev/null, stdout and stderr appended to the session's log (sessions.LogPath; a link
// planted there is refused, not followed). It waits until the run answers on its control
// socket, the run exits, ctx ends (the run is then stopped) or detachWait passes; an error
// carries the log's last lines.
func StartBackground(ctx context.Context, exe string, args []string, session string) (Background, error) {
	dir, err := relay.SocketDir()
	if err != nil {
		return Background{}, err
	}
	bg := Background{Log: sessions.LogPath(session), Socket: relay.SocketPath(dir, session)}
	if err := os.MkdirAll(filepath.Dir(session), sessions.DirMode); err != nil {
		return Background{}, err
	}
	logf, err := sessions.OpenLog(bg.Log)
	if err != nil {
		return Background{}, err
	}
	defer logf.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		return Background{}, err
	}
	defer null.Close()
	fmt.Fprintf(logf, "windtunnel: %s detached: %s %s\n", time.Now().Format(time.RFC3339), exe, strings.Join(args, " "))
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return Background{}, fmt.Errorf("start %s: %w", exe, err)
	}
	bg.Pid = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reaps the child should it end while this process lives
	if err := awaitSocket(ctx, bg.Socket, cmd.Process, exited); err != nil {
		return Background{}, fmt.Errorf("%w\nlast lines of %s:\n%s", err, bg.Log, LogTail(bg.Log, 12))
	}
	return bg, nil
}

// awaitSocket waits until the run p answers on socket, the run exits, ctx ends (the run is
// then stopped: signalled through p, which never reaches another process once the run has
// been waited for, as a bare pid could) or detachWait passes.
func awaitSocket(ctx context.Context, socket string, p *os.Process, exited <-chan error) error {
	pid := p.Pid
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
			p.Signal(syscall.SIGTERM)
			return fmt.Errorf("interrupted while the background run was starting (pid %d stopped)", pid)
		case <-deadline.C:
			return fmt.Errorf("the background run (pid %d) did not open its control socket %s within %v; it may still be starting", pid, socket, detachWait)
		case <-tick.C:
		}
	}
}

// LogTail returns the last n lines of the file at path (at most 8 KiB of it).
func LogTail(path string, n int) string {
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
