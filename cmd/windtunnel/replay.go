package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
	"windtunnel/tui"
	"windtunnel/tui/overlay"
)

func newReplayCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "replay FILE [FILE...]",
		Short: "Open the dashboard on a saved session (follows it if a run is still writing it); several sessions: compare them on one chart",
		Long: "replay opens the dashboard on a saved session, or compares several on one chart (bit error\n" +
			"(a), (b) or KL over steps, or the three a chart each; the pass line and the context-free level;\n" +
			"runs labelled by what differs in their configurations and judged against the pass line, the\n" +
			"seeds of one configuration as a mean ± sd band, heads switched off marked ⊘). It only reads:\n" +
			"nothing is written beside the sessions\n" +
			"(they may be in a read-only directory); its log goes to the user's cache directory\n" +
			"(" + viewerLogHint + ").",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s takes one or more session files", commandName(c))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var feeds []sessions.Feed
			var names []string
			task := ""
			for _, path := range args {
				r, err := sessions.Open(path)
				if err != nil {
					return err
				}
				defer r.Close()
				// What the dashboard reads first is read here: a bad file is named on the
				// screen, before the dashboard would wait on it.
				if err := r.Check(); err != nil {
					return err
				}
				if task == "" {
					task = r.Meta().Task
				} else if r.Meta().Task != task {
					return usagef("replay: %s is a %s session and %s a %s one: overlay sessions of one task", args[0], task, path, r.Meta().Task)
				}
				r.Follow(500 * time.Millisecond)
				feeds = append(feeds, r)
				names = append(names, sessions.SafeText(filepath.Base(path))) // the overlay's label when nothing else tells runs apart
			}
			// The files are checked first: a missing one is named whether or not there is a terminal.
			if !onTerminal(stdout) {
				return usagef("replay needs a terminal; use `windtunnel info` or `windtunnel export` to read a session without one")
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			logger, closeLog, err := openViewerLog(args[0])
			if err != nil {
				logger, closeLog = log.New(io.Discard, "", 0), func() {}
			}
			defer closeLog()
			opts := tui.Options{Logger: logger, AltScreen: true}
			if len(feeds) > 1 {
				return overlay.Run(ctx, feeds, names, opts)
			}
			_, err = tui.Run(ctx, feeds[0], opts)
			return err
		},
	}
}

// viewerLogHint says where viewers log, for the help.
const viewerLogHint = "$XDG_CACHE_HOME/windtunnel/logs or ~/.cache/windtunnel/logs on Linux"

// openViewerLog opens the log of a dashboard that only reads session (replay, attach) in
// the user's cache directory (sessions.OpenViewerLog), each line marked with this
// process's pid.
func openViewerLog(session string) (*log.Logger, func(), error) {
	f, err := sessions.OpenViewerLog(session)
	if err != nil {
		return nil, nil, err
	}
	prefix := fmt.Sprintf("[%d] ", os.Getpid())
	return log.New(f, prefix, log.LstdFlags|log.Lmicroseconds), func() { f.Close() }, nil
}
