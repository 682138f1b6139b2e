package tui

import (
	"context"
	"errors"
	"io"
	"log"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"windtunnel/sessions"
)

// Options configure the dashboard program.
type Options struct {
	// Input is the keyboard (nil: os.Stdin).
	Input io.Reader
	// Output is the terminal (nil: os.Stdout).
	Output io.Writer
	// Logger receives the dashboard's own log lines (nil: discarded); it must not write to
	// the terminal the dashboard owns.
	Logger *log.Logger
	// AltScreen runs the dashboard in the terminal's alternate screen.
	AltScreen bool
	// Width and Height, when both are positive, are the screen size to draw for until the
	// terminal reports one; an Output that is not a terminal never does (a host that knows
	// the size, such as an SSH server, sends tea.WindowSizeMsg when it changes).
	Width, Height int
	// Renderer styles the dashboard for its terminal: its colour profile and background
	// (nil: lipgloss's default renderer, which follows the process's own terminal). A
	// server showing the dashboard to several terminals gives each its own.
	Renderer *lipgloss.Renderer
	// DetachNote says, in the quit dialog of a live run, what detaching does there (empty:
	// the dashboard closes and the run goes on); the caller does it when Stats.Detached.
	DetachNote string
	// ReadOnly says the viewer may only watch (an SSH viewer whose key is not an
	// operator's): the keys that act on the run (pause, head toggles, restore, stop) are
	// left out of the key hints, the help and the quit dialog, and pressing one only says so.
	ReadOnly bool
	// Embedded says a host shows the dashboard inside its own program (an SSH server's run
	// picker): leaving it (q on a replay or an ended run, d or s in the quit dialog) sends
	// LeftMsg instead of quitting the program, and the host shows its own screen again.
	Embedded bool
	// RunPID is the process of the live run shown, whose CPU, memory and threads the System
	// pane samples (from /proc, on Linux); 0 when the viewer does not know it (the pane then
	// shows what the session records, and says so).
	RunPID int
}

// LeftMsg is what an Embedded dashboard sends when the user leaves it; Stats says how (a
// live run detached or stopped).
type LeftMsg struct{ Stats Stats }

// Log returns the Logger to write to (one that discards when none was given).
func (o Options) Log() *log.Logger {
	if o.Logger == nil {
		return log.New(io.Discard, "", 0)
	}
	return o.Logger
}

// Run shows the dashboard on feed until the user quits (q, ctrl+c) or ctx is done (both
// return a nil error) and returns its frame and key counters and how the user left: on a
// live run q asks whether to detach (Stats.Detached) or stop the run (Stats.Stopped, the
// stop event sent). Keeping a detached run going, or waiting for a stopped one and
// closing its session, is the caller's job.
func Run(ctx context.Context, feed sessions.Feed, opts Options) (Stats, error) {
	final, err := RunProgram(ctx, New(feed, opts), opts)
	var st Stats
	if m, ok := final.(Model); ok {
		st = m.Stats()
	}
	return st, err
}

// ProgramOptions returns the bubbletea options Run uses for opts: the dashboard's renderer
// rate, the mouse (its wheel zooms the charts over steps; shift and drag still selects text
// in most terminals), the input and output, the alternate screen. A host that runs New's model inside its
// own program (an SSH server's run picker) starts it with these.
func ProgramOptions(opts Options) []tea.ProgramOption {
	popts := []tea.ProgramOption{tea.WithFPS(rendererFPS), tea.WithMouseCellMotion()}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	if opts.AltScreen {
		popts = append(popts, tea.WithAltScreen())
	}
	return popts
}

// RunProgram runs model (the dashboard, or the comparison view of tui/overlay) as a
// bubbletea program on the terminal opts name, at the dashboard's renderer rate, until it
// quits or ctx is done, and returns its final model. Ending by ctx is not an error.
func RunProgram(ctx context.Context, model tea.Model, opts Options) (tea.Model, error) {
	popts := append(ProgramOptions(opts), tea.WithContext(ctx))
	final, err := tea.NewProgram(model, popts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return final, nil
	}
	return final, err
}
