// Package runconfig holds the configuration of a run (Config, the JSON a session stores in
// sessions.Meta.Config): the presets (quick, mid, paper), the cadence rule that fits a
// preset's evaluations to a shorter run (FitCadence), the range checks (Validate; and
// Decode, which bounds a configuration read from a file that may come from someone else
// before anything is sized from it) and the lengths an hmm run is scored at (EvalLengths).
//
// It is a leaf: it imports only tunnels and models/arch, so that every reader of a
// recorded run (sessions/derived, the dashboard, figures, reports, the run index) decodes a
// configuration with it instead of by hand, and the trainer (lab) runs it.
package runconfig
