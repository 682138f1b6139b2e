// Command windtunnel is a terminal lab bench for Bayesian wind tunnels: it trains small
// networks on sequence tasks whose exact Bayesian posterior is known and scores every
// prediction against that optimum in bits.
//
// Layout: main.go starts the process (and the self-measurement profile and trace named by
// WINDTUNNEL_CPUPROFILE and WINDTUNNEL_TRACE); root.go holds what every command shares —
// the command tree, exit statuses (0 ok, 1 failure, 2 usage), the signal context (SIGINT,
// SIGTERM, SIGHUP stop a run cleanly, recorded as interrupted; a process started with
// SIGHUP ignored, as under nohup, leaves it ignored), terminal detection and the --json and
// --blas flags; every other file is one command, named after it (run*.go: flags, session
// set-up, the headless run and the dashboard run, and run_foreground.go what becomes of a
// dashboard run when its dashboard ends: detached, it goes on headless in the same process,
// cut loose from its terminal by release.go (SIGHUP ignored, stdin /dev/null, stdout and
// stderr onto <session>.log);
// replay, which logs to the user's cache directory and writes nothing beside the sessions
// it reads, sample, info, export, probe, compare, bench*, device). sinks.go holds the trainer sinks the CLI adds: the progress line and
// a record callback. tunnelflags.go holds the task-size flags sample, score and run share
// (sample and score start them from --preset, as run does). suggest.go turns cobra's and
// pflag's errors into one line naming the command once and the closest flag or command
// (Levenshtein); run_messages.go holds run's help and its one-line device and --out errors.
// configfile.go reads run --config (TOML, YAML, JSON: decoded to a map, keys checked against
// the configuration's JSON tags by reflection, merged over the preset as JSON) and --like;
// configwrite.go writes info --config, every key, so the file reads back to the same
// configuration.
// serve.go is the dashboard over SSH: its flags, and runSource, the sshserve.Source that
// lists this user's live runs (relay control sockets) and the newest sessions of --runs,
// and opens a live run through its socket (relay.Feed: an operator's events reach the
// trainer, marked with the key's fingerprint) or a finished one as a replay.
//
// Live runs: control.go gives every run (headless or dashboard) its live feed and serves it
// on a control socket (package relay; the socket is named in the session's meta while the
// run lasts and removed when it ends). detach.go is run --detach: the same command again,
// headless, in its own session (setsid), its output in <session>.log, waited for until it
// answers on its socket. attach.go opens the dashboard on a live run through a relay.Feed
// (history from the session file, the rest from the socket); ls.go lists the live runs (from
// their sockets) and the recent sessions of --dir, filtered and sorted by lsquery.go (row
// fields, the newest whole-model metrics and the stored configuration's keys).
//
// The CLI is the only place that knows flag names: configuration errors come from lab as
// typed field errors (arch.FieldError) and flagError names the flag. Operator actions go
// from the dashboard to the trainer without passing through this package: the live feed
// (sessions.Live) is given the trainer as its sessions.Control.
package main
