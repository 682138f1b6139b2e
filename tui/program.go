package tui

import (
	"context"
	"errors"
	"io"
	"log"

	tea "github.com/charmbracelet/bubbletea"

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
	// terminal reports one; an Output that is not a terminal never does.
	Width, Height int
}

// logger is the Logger to write to (one that discards when none was given).
func (o Options) logger() *log.Logger {
	if o.Logger == nil {
		return log.New(io.Discard, "", 0)
	}
	return o.Logger
}

// Run shows the dashboard on feed until the user quits (q, ctrl+c) or ctx is done (both
// return a nil error) and returns its frame and key counters. Stopping a live run and
// closing its session is the caller's job.
func Run(ctx context.Context, feed sessions.Feed, opts Options) (Stats, error) {
	final, err := runProgram(ctx, New(feed, opts), opts)
	var st Stats
	if m, ok := final.(Model); ok {
		st = m.Stats()
	}
	return st, err
}

// RunOverlay shows the comparison view of feeds until the user quits (q, ctrl+c) or ctx is
// done; both return nil.
func RunOverlay(ctx context.Context, feeds []sessions.Feed, names []string, opts Options) error {
	if len(feeds) == 0 {
		return errors.New("tui: no sessions to compare")
	}
	_, err := runProgram(ctx, NewOverlay(feeds, names, opts), opts)
	return err
}

// runProgram runs model as a bubbletea program on the terminal opts name, at the
// dashboard's renderer rate, until it quits or ctx is done, and returns its final model.
// Ending by ctx is not an error.
func runProgram(ctx context.Context, model tea.Model, opts Options) (tea.Model, error) {
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(rendererFPS)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	if opts.AltScreen {
		popts = append(popts, tea.WithAltScreen())
	}
	final, err := tea.NewProgram(model, popts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return final, nil
	}
	return final, err
}
