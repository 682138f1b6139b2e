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
// ignored), terminal detection and the --json flag. Each command is a file named after it
// (run.go, sweep.go, llm.go, …), its subcommands in one beside it (sweep_status.go: sweep
// status and cancel; llm_view.go: llm view); detach.go is run --detach
// (launch.StartBackground), run_messages.go run's help and its one-line --device error, and
// suggest.go turns cobra's and pflag's errors into one line naming the command once and the
// closest flag or command (runconfig.Closest).
//
// run's configuration flags are not listed here: runconfig.BindFlags binds them from the
// table in sessions/runconfig (name, type, default and help), and run.go adds only how the
// run is carried out (--headless, --predictions, --out, --resume; --detach and --json).
// compare binds run's --preset, --steps, --blas and --workers and primitives its --blas
// (runconfig.BindSome), sample and score the task and its sizes (runconfig.BindTask,
// BindSizePreset), probe and timescales --blas (runconfig.BindBLAS). The configuration is runconfig.Flags.Config, the
// one path from a preset, --config or --like and the flags; lab/sweep and lab/bench build
// their points' and rows' configurations with runconfig themselves. run.go sets the run up
// (lab/launch: a new session, or a resumed one with the settings launch.ResumeSettings
// names) and hands it to launch.Headless or launch.WithDashboard; labels.go holds its --name,
// --tag and --note (sessions.Labels, kept apart from the configuration) and the tag command
// (sessions.Relabel). slim.go copies sessions small enough to commit or share
// (sessions.Slim), with a sweep folder's manifest, so the copy is a sweep to continue.
//
// compare is a grid of run's points on the sweep engine (lab/sweep): its folder is a sweep
// folder; --from reads any folder of sessions. ls, attach and serve find runs through
// sessions/index (serve's source is sshserve.IndexSource); replay DIR and attach DIR open
// tui/runpicker on the folder (a sweep's or a compare's with its settings, Manifest.Settings);
// info describes a session
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
// A configuration error comes as a typed field error (arch.FieldError), which
// runconfig.FlagError words with the flag that sets the field (runconfig.FlagOf); the
// flags of the commands' own options are this package's. Operator actions go from the
// dashboard to the trainer without passing through this package: the live feed
// (sessions.Live) is given the trainer as its sessions.Control.
package main
