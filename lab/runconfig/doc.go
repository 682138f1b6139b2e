// Package runconfig holds the configuration of a run as a session records it (Config, the
// JSON in sessions.Meta.Config): the presets (quick, mid, paper), the cadence rule that fits
// a preset's evaluations to a shorter run (FitCadence), the range checks (Validate; and
// SessionConfig, which bounds a configuration read from a file that may come from someone
// else before anything is sized from it), and SessionRun, a recorded run as the architecture
// table scores it. The trainer (lab) runs a Config; the readers of finished runs (figures,
// reports, compare --from) use this package without importing the trainer and its compute
// dependencies. It imports tunnels, models/arch, sessions, sessions/derived and diagnostics.
package runconfig
