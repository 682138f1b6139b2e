// Command windtunnel is a terminal lab bench for Bayesian wind tunnels: it trains small
// networks on sequence tasks whose exact Bayesian posterior is known and scores every
// prediction against that optimum in bits.
//
// Layout: main.go starts the process (and the self-measurement profile and trace named by
// WINDTUNNEL_CPUPROFILE and WINDTUNNEL_TRACE); root.go holds what every command shares —
// the command tree, exit statuses (0 ok, 1 failure, 2 usage), the signal context (SIGINT,
// SIGTERM, SIGHUP stop a run cleanly), terminal detection and the --json and --blas flags;
// every other file is one command, named after it (run*.go: flags, session set-up, the
// headless run and the dashboard run; replay, sample, info, export, probe, compare,
// bench*, device). sinks.go holds the trainer sinks the CLI adds: the progress line and
// a record callback. tunnelflags.go holds the task-size flags sample and run share.
//
// The CLI is the only place that knows flag names: configuration errors come from lab as
// typed field errors (lab.FieldError) and flagError names the flag. Operator actions go
// from the dashboard to the trainer without passing through this package: the live feed
// (sessions.Live) is given the trainer as its sessions.Control.
package main
