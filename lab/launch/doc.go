// Package launch sets a run up and carries it (windtunnel run, whose points compare and
// sweep run too): New builds the trainer of a configuration and creates its session (closing
// the trainer again when the session cannot be created), Resumable and Resume continue a
// session from its last checkpoint (CheckResumeFlags: the flags that may go with it; ResumeSettings: those of them that change the configuration), with the frame history its snapshots hold (lab.Trainer.RestoreFrames), recording its new planned length; Meta describes a run for its session.
// StartControl gives a running trainer its live feed and control socket (sessions/relay),
// through which attach, ls and serve reach it; Progress prints a run's progress line;
// Summarize (its JSON line, or Summary.WriteText on a terminal) and WritePredictions are
// what a headless run prints and writes at its end; Recorded cuts a result back to what
// its session holds when the session could not be written to the end (a full disk).
//
// A run whose dashboard closes goes on in its process (DetachedProgress, WatchTerminal,
// AwaitStop; IgnoreHangup and ReleaseTerminal cut it loose from its terminal), and
// StartBackground starts one in the background (run --detach), its output in the
// session's log (sessions.LogPath).
//
// Headless and WithDashboard carry a run to its end without or with the dashboard (tui) on
// the terminal; PrintExit prints its end.
//
// It imports lab, sessions/runconfig, sessions, sessions/derived, sessions/relay, tui, tunnels
// and diagnostics; the command line (cmd/windtunnel) parses flags and prints.
package launch
