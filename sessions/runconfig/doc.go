// Package runconfig holds the configuration of a run (Config, the JSON a session stores in
// sessions.Meta.Config): the presets (quick, laptop, soft, mid, paper; TaskTarget, the
// training target a run uses where its configuration leaves it unset), the cadence rule that fits a
// preset's evaluations to a shorter run (FitCadence), the range checks (Validate, which
// checks the sizes through the same validateSizes as Decode, which bounds a configuration
// read from a file that may come from someone else before anything is sized from it) and
// the lengths an hmm run is scored at (EvalLengths). ReadUserFile reads a small file a user
// names (a configuration, a sweep file), refusing a FIFO at once; TOMLDepth bounds how deep
// a TOML text nests before the parser, which has no bound of its own, reads it.
//
// Build is the one path from a preset, a source (a configuration file, ReadFile: TOML, YAML
// or JSON, keys checked against the configuration's JSON names; or a recorded run, Like)
// and `windtunnel run`'s flags (Overrides, with their defaults, DefaultOverrides) to a
// validated configuration, the cadences fitted by one rule whatever their source; run,
// compare's and sweep's points and bench all take it.
//
// The table of run's configuration flags (flags.go: settings, one row a flag with its
// field, what it applies to and its help; sizeFlags, the tunnels' sizes) is the one list of
// them: BindFlags binds them all to a pflag set with their types and defaults, and
// BindSome, BindTask, BindSizePreset and BindBLAS the few another command takes (compare's
// --preset, --steps, --blas and --workers; sample's and score's --task and sizes), so no
// command lists them again. Flags holds what was given; Flags.Config builds the
// configuration (the checks that name a flag, then Build; --like read by the caller's
// LikeReader, since a session is not this package's to open), FromArgs does it from a
// command line (every point of sweep and compare, every row of bench), Flags.Tunnel builds
// sample's and score's task. Build applies the table, FlagOf names the flag of a field
// error (FlagError, FlagReason), FlagTask and FlagModel say what a flag applies to
// (CheckApplies refuses one given for another task or model), Overrides.Apply sets the
// settings a resumed run may change, and Args gives the flags that build a configuration
// again (the report's regenerating commands). Write writes a configuration as a file
// ReadFile reads back to it (info --config); Keys and Lookup name and read its keys (ls
// --where); Closest suggests the key, flag or command a misspelt one meant; PresetValues
// describes the presets' tunnel sizes for the size flags' help.
//
// It is a leaf: of the project it imports only tunnels, models/arch and untrusted (and of
// the command line only pflag, for the flag sets it binds), so that every reader of a
// recorded run (sessions/derived, the dashboard, figures, reports, the run index) decodes a
// configuration with it instead of by hand, and the trainer (lab) runs it.
package runconfig
