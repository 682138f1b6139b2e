// Command windtunnel is a terminal lab bench for Bayesian wind tunnels: it trains small
// networks on sequence tasks whose exact Bayesian posterior is known and scores every
// prediction against that optimum in bits.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"

	"github.com/spf13/cobra"
)

// version is the tool version recorded in sessions.
const version = "0.1.0"

// usageError marks a bad command line: exit status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	// For measuring the tool itself: WINDTUNNEL_CPUPROFILE and WINDTUNNEL_TRACE name files
	// for a CPU profile and an execution trace of the whole command.
	var stops []func()
	for _, p := range []struct {
		env   string
		start func(io.Writer) error
		stop  func()
	}{
		{"WINDTUNNEL_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile},
		{"WINDTUNNEL_TRACE", trace.Start, trace.Stop},
	} {
		if path := os.Getenv(p.env); path != "" {
			if f, err := os.Create(path); err == nil && p.start(f) == nil {
				stops = append(stops, func() { p.stop(); f.Close() })
			}
		}
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	for _, stop := range stops {
		stop()
	}
	os.Exit(code)
}

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "windtunnel: %v\n", err)
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "windtunnel",
		Short:         "A terminal lab bench for Bayesian wind tunnels",
		Long:          "windtunnel trains small transformers and baselines on tasks whose exact Bayesian posterior is known,\nand scores every prediction against that optimum in bits.",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%s: %w", c.CommandPath(), err)}
	})
	root.AddCommand(newSampleCmd(stdout), newRunCmd(stdout, stderr), newBenchCmd(stdout, stderr), newInfoCmd(stdout), newExportCmd(stdout), newReplayCmd(stdout, stderr), newProbeCmd(stdout), newCompareCmd(stdout, stderr), newDeviceCmd(stdout))
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown command %q (try --help)", args[0])
		}
		return nil
	}
	// Bare `windtunnel` on a terminal starts the quick bijection run in the dashboard.
	root.RunE = func(c *cobra.Command, _ []string) error {
		if !onTerminal(stdout) {
			return c.Help()
		}
		rc := newRunCmd(stdout, stderr)
		rc.SetArgs(nil)
		rc.SetContext(c.Context())
		return rc.RunE(rc, nil)
	}
	return root
}

// noArgs rejects positional arguments as a usage error.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", c.CommandPath(), args)
	}
	return nil
}
