package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"

	"windtunnel/lab"
	"windtunnel/sessions"
)

// What becomes of a run whose dashboard has the terminal (WithDashboard) when the dashboard ends:
//   - the user chose detach (d in the quit dialog): the run goes on in this process, cut
//     loose from the terminal as a run --detach is (continueDetached): SIGHUP ignored, stdin
//     /dev/null, its progress and summary appended to <session>.log, the control socket
//     kept for ls and attach; closing the terminal does not end it;
//   - the user chose stop (s), or the run had ended: the trainer finishes (AwaitStop);
//   - a signal (SIGINT, SIGTERM, SIGHUP when the terminal closed): the trainer has the same
//     context and records the run as interrupted, never as stopped by the operator;
//   - the terminal went away with SIGHUP ignored (nohup), or the dashboard failed:
//     WatchTerminal ends the dashboard and the run goes on as if detached.
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
// on stderr (still the terminal), cuts the process loose from the terminal (IgnoreHangup,
// ReleaseTerminal: from then on stderr is the session's log), has bg print the run's
// progress there and waits for the trainer to end, by itself or by a signal (SIGINT,
// SIGTERM), which ends ctx: the trainer, run under ctx, records the run as interrupted.
// fate says what the run does now ("run continues", or that it stays paused: tui.Stats.Fate).
// Once released, the progress goes to the log as a run --detach's does (a line at each
// evaluation, no terminal codes); released says the terminal was let go of.
func continueDetached(ctx context.Context, bg *DetachedProgress, steps int, session, fate string, done <-chan Outcome, stderr io.Writer, tty bool) (o Outcome, released bool) {
	IgnoreHangup()
	pid := os.Getpid()
	logPath := sessions.LogPath(session)
	fmt.Fprintf(stderr, "windtunnel: detached: %s in this process (pid %d) without this terminal; session %s\n", fate, pid, session)
	fmt.Fprintf(stderr, "windtunnel: its output goes to %s; closing this terminal does not stop it; windtunnel ls and attach find it\n", logPath)
	fmt.Fprintf(stderr, "windtunnel: kill %d (or ctrl+c here) stops it cleanly (final evaluation and checkpoint); ctrl+z then bg gives this shell back\n", pid)
	if err := ReleaseTerminal(logPath); err != nil {
		fmt.Fprintf(stderr, "windtunnel: %v; the run goes on here with SIGHUP ignored\n", err)
	} else {
		fmt.Fprintf(stderr, "windtunnel: %s detached from its terminal (pid %d); session %s\n", time.Now().Format(time.RFC3339), pid, session)
		released, tty = true, false // stderr is the log now
	}
	bg.Start(ctx, steps, stderr, tty)
	o = <-done
	bg.Close()
	return o, released
}

// Outcome is how a trainer's Run ended.
type Outcome struct {
	Res lab.Result
	Err error
}

// StopWait bounds the wait for a stopped run's final evaluation and checkpoint before its
// context is cancelled (a paused or very slow step).
const StopWait = 2 * time.Minute

// ErrTerminalLost is the cause of watchTerminal's context ending when the terminal went away.
var ErrTerminalLost = errors.New("the terminal went away")

// AwaitStop waits for a run that was asked to stop to finish, cancelling it (cancel) after
// StopWait.
func AwaitStop(done <-chan Outcome, cancel context.CancelFunc) Outcome {
	select {
	case o := <-done:
		return o
	case <-time.After(StopWait):
		cancel()
		return <-done
	}
}

// WatchTerminal returns a context that ends with ctx, or with cause ErrTerminalLost once f
// is no longer a terminal: a hung-up terminal fails the check, so a dashboard whose
// terminal closed while SIGHUP is ignored does not stay open forever. It checks every
// interval; call the cancel function when done.
func WatchTerminal(ctx context.Context, f *os.File, every time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if !isatty.IsTerminal(f.Fd()) {
					cancel(ErrTerminalLost)
					return
				}
			}
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// DetachedProgress is a trainer sink that stays silent while the dashboard owns the
// terminal and, once the dashboard detached (start), hands the records to a progress line.
type DetachedProgress struct{ p atomic.Pointer[Progress] }

// Start begins printing the run's progress (steps in all) to w (a terminal when tty).
func (d *DetachedProgress) Start(ctx context.Context, steps int, w io.Writer, tty bool) {
	d.p.Store(NewProgress(ctx, steps, w, tty))
}

// Record passes the record on once started.
func (d *DetachedProgress) Record(r sessions.Record) {
	if p := d.p.Load(); p != nil {
		p.Record(r)
	}
}

// Event is ignored: the session records operator events.
func (d *DetachedProgress) Event(sessions.Event) {}

// Checkpoint is ignored.
func (d *DetachedProgress) Checkpoint(*sessions.Checkpoint) {}

// Close ends the progress line, if started; call it after the trainer's Run returned.
func (d *DetachedProgress) Close() {
	if p := d.p.Load(); p != nil {
		p.Close()
	}
}
