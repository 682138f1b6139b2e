package main

import (
	"fmt"
	"io"
	"log"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
	"windtunnel/tui"
)

func newReplayCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "replay FILE [FILE...]",
		Short: "Open the dashboard on a saved session (follows it if a run is still writing it); several sessions: overlay their bit error",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("%s takes one or more session files", c.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !onTerminal(stdout) {
				return usagef("replay needs a terminal; use `windtunnel info` or `windtunnel export` to read a session without one")
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
				if task == "" {
					task = r.Meta().Task
				} else if r.Meta().Task != task {
					return usagef("replay: %s is a %s session and %s a %s one: overlay sessions of one task", args[0], task, path, r.Meta().Task)
				}
				r.Follow(500 * time.Millisecond)
				feeds = append(feeds, r)
				names = append(names, fmt.Sprintf("%s (%s)", r.Meta().Model, filepath.Base(path)))
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			logger, closeLog, err := openLog(args[0] + ".replay")
			if err != nil {
				logger, closeLog = log.New(io.Discard, "", 0), func() {}
			}
			defer closeLog()
			opts := tui.Options{Logger: logger, AltScreen: true}
			if len(feeds) > 1 {
				return tui.RunOverlay(ctx, feeds, names, opts)
			}
			_, err = tui.Run(ctx, feeds[0], opts)
			return err
		},
	}
}
