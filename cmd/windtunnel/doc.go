// Command windtunnel is a terminal lab bench for Bayesian wind tunnels: it trains small
// networks on sequence tasks whose exact Bayesian posterior is known and scores every
// prediction against that optimum in bits.
//
// This package is the command line only: flag parsing, wiring and printing; what the
// commands do lives in the packages they call. main.go starts the process (and the
// self-measurement profile and trace named by WINDTUNNEL_CPUPROFILE and WINDTUNNEL_TRACE);
// root.go holds what every command shares — the command tree, exit statuses (0 ok, 1
// failure, 2 usage), the signal context (SIGINT, SIGTERM, SIGHUP stop a run cleanly,
// recorded as interrupted; a process started with SIGHUP ignored, as under nohup, leaves it
// ignored), terminal detection and the --json and --blas flags; every other file is one
// command, named after it.
//
// run: run_flags.go registers run's flags into runconfig.Overrides and builds the
// configuration by runconfig.Build, the one path from a preset, --config or --like and the
// flags (sweep's and compare's points and bench take it too, through pointConfig); run.go
// sets the run up (lab/launch: a new or resumed session) and hands it to launch.Headless or
// launch.WithDashboard; labels.go holds its --name, --tag and --note (sessions.Labels, kept
// apart from the configuration) and the tag command (sessions.Relabel); detach.go is --detach (launch.StartBackground); run_messages.go holds
// run's help and its one-line --device and --out errors. tunnelflags.go holds the task-size
// flags sample, score and run share. suggest.go turns cobra's and pflag's errors into one
// line naming the command once and the closest flag or command (runconfig.Closest).
//
// compare is a grid of run's points on the sweep engine (lab/sweep): its folder is a sweep
// folder; --from reads any folder of sessions. ls, attach and serve find runs through
// sessions/index (serve's source is sshserve.IndexSource); replay DIR and attach DIR open
// tui/runpicker on the folder; info describes a session
// (index.ReadInfo) and writes its configuration (runconfig.Write); export is
// sessions/export, score tunnels/score, probe lab/probe, bench lab/bench, device
// backends/devices, plot and report sessions/figures and sessions/reports; llm.go is
// lab/llmsuite (the experiments a model cannot support skipped or refused before any pass,
// what finished written even when a later one fails) and llm_view.go tui/llmview.
//
// A name read from a file, a folder or a model (a path, a token) is printed through
// sessions.SafeText, and every file written into a folder the user names goes through
// sessions.WriteOutput (whole or not at all, never through a link).
//
// The CLI is the only place that knows flag names, with runconfig's table of run's flags:
// configuration errors come as typed field errors (arch.FieldError) and flagError names the
// flag (runconfig.FlagOf). Operator actions go from the dashboard to the trainer without
// passing through this package: the live feed (sessions.Live) is given the trainer as its
// sessions.Control.
package main
