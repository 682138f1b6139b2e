package launch

import (
	"context"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"

	"windtunnel/lab"
	"windtunnel/sessions"
)

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
