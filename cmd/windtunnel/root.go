package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windtunnel/cmd/internal/cliusage"
	"windtunnel/sessions"
)

// version is the tool version recorded in sessions.
const version = "0.1.0"

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the command failed
	exitUsage = 2 // a bad command line
)

// usageError marks a bad command line: exit status 2.
type usageError = cliusage.Error

// usagef formats a usage error.
func usagef(format string, a ...any) error { return cliusage.Errorf(format, a...) }

// commandName is c's path without the program's name (cliusage.CommandName).
func commandName(c *cobra.Command) string { return cliusage.CommandName(c) }

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runRoot(newRoot(stdout, stderr), args, stderr)
}

// runRoot executes the command tree root on args, printing an error on stderr, and returns
// the exit status.
func runRoot(root *cobra.Command, args []string, stderr io.Writer) int {
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "windtunnel: %s\n", sessions.SafeLines(err.Error()))
	var u usageError
	if errors.As(err, &u) {
		return exitUsage
	}
	return exitError
}

// newRoot builds the command tree.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "windtunnel",
		Short: "A terminal lab bench for Bayesian wind tunnels",
		Long: "windtunnel trains small transformers and baselines on tasks whose exact Bayesian posterior is known,\n" +
			"and scores every prediction against that optimum in bits. Start with `windtunnel run` (the quick\n" +
			"bijection run: the dashboard on a terminal, a JSON summary without one).",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(cliusage.FlagError)
	root.AddCommand(newSampleCmd(stdout), newRunCmd(stdout, stderr), newBenchCmd(stdout, stderr), newInfoCmd(stdout), newExportCmd(stdout),
		newReplayCmd(stdout, stderr), newProbeCmd(stdout), newCompareCmd(stdout, stderr), newDeviceCmd(stdout))
	root.AddCommand(newServeCmd(stdout, stderr))
	root.AddCommand(newScoreCmd(stdout))
	root.AddCommand(newAttachCmd(stdout, stderr), newLsCmd(stdout, stderr), newTagCmd(stdout))
	root.AddCommand(newPlotCmd(stdout, stderr))
	root.AddCommand(newReportCmd(stdout, stderr))
	root.AddCommand(newSweepCmd(stdout, stderr))
	root.AddCommand(newPrimitivesCmd(stdout, stderr))
	root.AddCommand(newLLMCmd(stdout, stderr))
	root.AddCommand(newTimescalesCmd(stdout, stderr))
	root.AddCommand(newMetricCmd(stdout), newSlimCmd(stdout, stderr))
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return cliusage.UnknownCommand(c, args[0])
		}
		return nil
	}
	// Bare `windtunnel` prints the help (exit 0); `windtunnel run` starts the quick run.
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	return root
}

// noArgs rejects positional arguments as a usage error.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", commandName(c), args)
	}
	return nil
}

// oneFile accepts exactly one positional argument, the session file.
func oneFile(c *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("%s takes one session file, got %d arguments", commandName(c), len(args))
	}
	return nil
}

// signalContext returns the command's context, cancelled by SIGINT, SIGTERM or SIGHUP (a
// dropped SSH connection): every long command stops the same way, cleanly. A process
// started with SIGHUP ignored (nohup, a detached run) leaves it ignored: asking to be
// notified of it would turn it back on, and closing the terminal would stop the run.
func signalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return signal.NotifyContext(ctx, sigs...)
}

// outliveOutput makes a write to a closed pipe an error (EPIPE) instead of the SIGPIPE
// that would kill the process: a run, or a sweep, whose output reader went away (`run
// 2>&1 | head -2`) trains on to its end, final evaluation and checkpoint, as it outlives
// its terminal; only what it prints is lost. Short commands keep the default: `sample | head`
// ends at once.
func outliveOutput() { signal.Ignore(syscall.SIGPIPE) }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// onTerminal reports whether both stdin and stdout are terminals (so the dashboard can own them).
func onTerminal(stdout io.Writer) bool {
	return isTerminal(stdout) && isTerminal(os.Stdin)
}

// jsonFlag registers --json, which prints what is described as JSON instead of text.
func jsonFlag(fs *pflag.FlagSet, p *bool, what string) {
	fs.BoolVar(p, "json", false, "print "+what)
}
