package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
	"windtunnel/lab/launch"

	"windtunnel/sessions"
)

// What becomes of a run whose dashboard has the terminal (runTUI) when the dashboard ends:
//   - the user chose detach (d in the quit dialog): the run goes on in this process, cut
//     loose from the terminal as a run --detach is (continueDetached): SIGHUP ignored, stdin
//     /dev/null, its progress and summary appended to <session>.log, the control socket
//     kept for ls and attach; closing the terminal does not end it;
//   - the user chose stop (s), or the run had ended: the trainer finishes (launch.AwaitStop);
//   - a signal (SIGINT, SIGTERM, SIGHUP when the terminal closed): the trainer has the same
//     context and records the run as interrupted, never as stopped by the operator;
//   - the terminal went away with SIGHUP ignored (nohup), or the dashboard failed:
//     launch.WatchTerminal ends the dashboard and the run goes on as if detached.
//
// Detaching keeps the run in this process rather than handing it to a new background
// process resumed from a checkpoint: nothing is stopped, rebuilt or re-read (the model,
// the device, the data stream, the viewers attached through the socket all stay), and
// nothing can fail to start. The cost is that the shell that started the run waits for
// this process until the run ends (ctrl+z then bg gives it back).

// detachNote is what the quit dialog says detaching does for a run in this process
// writing session.
func detachNote(pid int, session string, socket bool) string {
	s := fmt.Sprintf("close the dashboard and let go of this terminal: the run goes on in this process (pid %d), its output in %s; closing the terminal does not stop it", pid, filepath.Base(sessions.LogPath(session)))
	if socket {
		s += "; windtunnel attach shows it again"
	}
	return s
}

// continueDetached carries a run on in this process after its dashboard closed: it says so
// on stderr (still the terminal), cuts the process loose from the terminal (launch.IgnoreHangup,
// launch.ReleaseTerminal: from then on stderr is the session's log), has bg print the run's
// progress there and waits for the trainer to end, by itself or by a signal (SIGINT,
// SIGTERM), which ends ctx: the trainer, run under ctx, records the run as interrupted.
func continueDetached(ctx context.Context, bg *launch.DetachedProgress, steps int, session string, done <-chan launch.Outcome, stderr io.Writer) launch.Outcome {
	launch.IgnoreHangup()
	pid := os.Getpid()
	logPath := sessions.LogPath(session)
	fmt.Fprintf(stderr, "windtunnel: detached: run continues in this process (pid %d) without this terminal; session %s\n", pid, session)
	fmt.Fprintf(stderr, "windtunnel: its output goes to %s; closing this terminal does not stop it; windtunnel ls and attach find it\n", logPath)
	fmt.Fprintf(stderr, "windtunnel: kill %d (or ctrl+c here) stops it cleanly (final evaluation and checkpoint); ctrl+z then bg gives this shell back\n", pid)
	if err := launch.ReleaseTerminal(logPath); err != nil {
		fmt.Fprintf(stderr, "windtunnel: %v; the run goes on here with SIGHUP ignored\n", err)
	} else {
		fmt.Fprintf(stderr, "windtunnel: %s detached from its terminal (pid %d); session %s\n", time.Now().Format(time.RFC3339), pid, session)
	}
	bg.Start(ctx, steps, stderr, isTerminal(stderr))
	o := <-done
	bg.Close()
	return o
}
