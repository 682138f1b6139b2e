package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"time"
	"windtunnel/sessions/index"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
	"windtunnel/tui"
)

func newAttachCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "attach [RUN | DIR]",
		Short: "Open the dashboard on a live run (history from its session, the rest from its control socket)",
		Long: "attach opens the dashboard on a run that is still training in another process (run --detach,\n" +
			"a headless or dashboard run elsewhere): the history from its session file, new records and operator\n" +
			"events as they happen through the run's control socket; head toggles, pause and stop go to the run.\n" +
			"q asks whether to detach (the run goes on) or stop the run. RUN is the session file, or a prefix or\n" +
			"a unique part of a live run's session name (`windtunnel ls` lists them); without RUN, the one live\n" +
			"run. A folder opens the run picker of its runs, as `replay DIR` does (enter on a live run attaches).\n" +
			"The viewer's log goes to the user's cache directory (" + viewerLogHint + ").",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("%s takes at most one run, got %d arguments", commandName(c), len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			if dir, ok, err := folderArg("attach", args); ok || err != nil {
				if err != nil {
					return err
				}
				return pickRuns(cmd.Context(), "attach", dir, stdout)
			}
			query := ""
			if len(args) == 1 {
				query = args[0]
			}
			run, err := pickRun(ctx, query)
			if err != nil {
				return err
			}
			if !onTerminal(stdout) {
				return usagef("attach needs a terminal; `windtunnel ls` shows where %s stands", run.Name())
			}
			feed, err := relay.OpenFeed(ctx, run.Socket)
			if err != nil {
				return fmt.Errorf("attach: %w", err)
			}
			defer feed.Close()
			logger, closeLog, err := openViewerLog(run.Hello.Meta.Path)
			if err != nil {
				logger, closeLog = log.New(io.Discard, "", 0), func() {}
			}
			defer closeLog()
			name := sessions.SafeText(run.Name())
			st, err := tui.Run(ctx, feed, tui.Options{Logger: logger, AltScreen: true, RunPID: run.Hello.Pid,
				DetachNote: "close this viewer; the run goes on (windtunnel attach " + name + " comes back)"})
			if st.Stopped {
				sessions.AwaitEnd(ctx, feed, attachStopWait)
			}
			if last, ok, _ := feed.At(-1); !feed.Live() && ok {
				fmt.Fprintf(stderr, "windtunnel: %s %s at step %d\n", name, last.State, last.Step)
			} else {
				fmt.Fprintf(stderr, "windtunnel: detached; %s %s (pid %d): windtunnel attach %s\n", name, st.Fate(), run.Hello.Pid, name)
			}
			return err
		},
	}
}

// attachStopWait bounds how long attach waits for a run it stopped to end (its final
// evaluation and checkpoint).
const attachStopWait = 2 * time.Minute

// pickRun finds the live run query names (index.Pick): a query that matches several live
// runs or none is a usage error listing them.
func pickRun(ctx context.Context, query string) (relay.Run, error) {
	runs, err := index.Live(ctx, "")
	if err != nil {
		return relay.Run{}, fmt.Errorf("attach: %w", err)
	}
	run, err := index.Pick(runs, query)
	switch {
	case index.IsChoiceError(err):
		return relay.Run{}, usagef("attach: %w", err)
	case err != nil:
		return relay.Run{}, fmt.Errorf("attach: %w", err)
	}
	return run, nil
}
