// Package sessiontest writes sessions for tests without training. Meta describes a run of
// a configuration as its session does; Finished is the records of such a run that went to
// its end (a record a step, an evaluation at the run's cadence and at its last step, a done
// record), Write records them. WriteDashboard is the synthetic run the dashboard's goldens
// read (tui/testdata/fixture.wtlab): evaluations, attention and geometry snapshots with the
// frame history and ablation table, a pause and a head switched off; DashMeta, DashEval,
// DashSnapshot and WithFidelity are its parts.
//
// Only tests import it. It imports sessions, sessions/derived, sessions/runconfig and
// diagnostics.
package sessiontest
