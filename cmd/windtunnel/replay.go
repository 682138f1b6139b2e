package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/lab/sweep"
	"windtunnel/sessions"
	"windtunnel/tui"
	"windtunnel/tui/overlay"
	"windtunnel/tui/runpicker"
)

func newReplayCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "replay FILE [FILE...] | DIR",
		Short: "Open the dashboard on a saved session (follows it if a run is still writing it); several sessions: compare them on one chart",
		Long: "replay opens the dashboard on a saved session, or compares several on one chart (bit error\n" +
			"(a), (b) or KL over steps, or the three a chart each; the pass line and the context-free level;\n" +
			"runs labelled by what differs in their configurations and judged against the pass line, the\n" +
			"seeds of one configuration as a mean ± sd band, heads switched off marked ⊘). It only reads:\n" +
			"nothing is written beside the sessions\n" +
			"(they may be in a read-only directory). A folder (runs/, a sweep's, a compare's) opens the run\n" +
			"picker: ls's columns, / filters as ls --where does (task=hmm tag=lr bit_error<0.1, or words), s\n" +
			"sorts, enter opens the run (a live one as attach does), and leaving it comes back to the list.\n" +
			"Its log goes to the user's cache directory\n" +
			"(" + viewerLogHint + ").",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s takes one or more session files, or a folder of them", commandName(c))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir, ok, err := folderArg("replay", args); ok || err != nil {
				if err != nil {
					return err
				}
				return pickRuns(cmd.Context(), "replay", dir, stdout)
			}
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

// folderArg reports whether args name one folder (a run picker's), and refuses a folder
// among several arguments.
func folderArg(command string, args []string) (string, bool, error) {
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.IsDir() {
			if len(args) > 1 {
				return "", false, usagef("%s: %s is a folder: give one folder (the run picker) or session files", command, a)
			}
			return a, true, nil
		}
	}
	return "", false, nil
}

// pickRuns opens the run picker of dir (tui/runpicker) on the terminal.
func pickRuns(ctx context.Context, command, dir string, stdout io.Writer) error {
	if err := sessions.CheckFolder(dir); err != nil {
		return usagef("%s: %v", command, err)
	}
	if !onTerminal(stdout) {
		return usagef("%s %s needs a terminal; `windtunnel ls --dir %s` lists its runs without one", command, dir, dir)
	}
	ctx, cancel := signalContext(ctx)
	defer cancel()
	logger, closeLog, err := openViewerLog(dir)
	if err != nil {
		logger, closeLog = log.New(io.Discard, "", 0), func() {}
	}
	defer closeLog()
	po := runpicker.Options{Title: "windtunnel " + command + " " + sessions.SafeText(dir), Dir: dir}
	if m, err := sweep.Read(dir); err == nil { // a sweep's or a compare's folder: its settings beside the metrics
		po.Settings = m.Settings()
	} else if !errors.Is(err, fs.ErrNotExist) {
		logger.Printf("%s %s: the settings are not shown: %v", command, dir, err)
	}
	return runpicker.Run(ctx, po, tui.Options{Logger: logger, AltScreen: true})
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
