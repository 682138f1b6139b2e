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

// Run shows the dashboard on feed until the user quits (q, ctrl+c) or ctx is done (both
// return a nil error) and returns its frame and key counters. Stopping a live run and
// closing its session is the caller's job.
func Run(ctx context.Context, feed sessions.Feed, opts Options) (Stats, error) {
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
	final, err := tea.NewProgram(New(feed, opts), popts...).Run()
	var st Stats
	if m, ok := final.(Model); ok {
		st = m.Stats()
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return st, nil
	}
	return st, err
}
