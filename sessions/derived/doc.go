// Package derived owns what is derived from a recorded run rather than recorded in it, and
// the one reader of recorded runs (ReadRun): the rule for "the same configuration" (which
// runs are seeds of one configuration and may be pooled into one mean, one pass count, one
// band), the seed band itself (SeedBand, MeanSD), the pass threshold of bit error (a), the
// verdicts (Primitives with their thresholds, PassBits and recall's PassAccuracy; Paper I's
// PaperVerdict, and PaperWord, which names Mamba's recall slow; CriterionOf and VerdictOf, one evaluation against its tunnel's criterion,
// which the run's exit line and summary, the dashboard and the overlay use; Outcome, a
// claim's verdict against the paper's criterion and a null, with Beyond's margin over seeds),
// which sessions are copies of one replicate (Replicates: one configuration and one seed,
// counted once by the table and the report; CopiesDisagree) and the
// architecture table built on them (Table: a cell per configuration of a task and model,
// with its seeds' Stat and pass count) and the primitives table on it (PrimitiveTable:
// each cell judged ✓, ✗ or slow by PrimitiveCellOf on its seeds' curves, SlowFraction, the
// context-free level and Paper I's printed level beside it, each hmm cell's length
// generalisation, LengthsOf, and belief simplex, SimplexOf, judged against the untrained
// model by SimplexMeets and SimplexOutcome, its corner line drawn from the exact posterior's
// own measurement, SimplexOptimum: simplex.go, lengthtable.go), the context-free level (ContextFree, ContextFreeOf
// a recorded run), the scale precision settles on and the settle band, the NaN-skipping
// mean, a run's wall time without its pauses (Pauses from its operator events, ActiveWall,
// PausedS, ActiveRecords: the frontier figure, the table, the overlay's wall-clock axis and
// the dashboard's System pane use it), and the authors' frame statistic as a series (the J-lens ratio against the current
// and the final frame, its threshold, the frame's site, pass and settle steps). Every
// reader that groups runs (compare --from, report, plot and the dashboard's overlay) uses
// this one rule, so a verdict never pools runs that trained different things. A run's
// labels (sessions.Labels, read by ReadRun) never enter it; CommonName is the name a
// group's runs share, which those readers show as the group's label.
//
// Paper II's two-timescale result lives here too (Timescales: its schema, StepsToTarget, the
// bounded DecodeTimescales the report reads it back with, and Text, what the command prints), and
// ValueLRPairs, which configurations of the tunnels are its two arms, for the report's rows and
// the figures alike.
//
// The rule works on the stored configuration as JSON (sessions.Meta.Config, a
// runconfig.Config; KeyOf keys a Config): two runs are the same configuration when their configurations are equal as
// decoded JSON objects (keys compared without regard to case, as encoding/json matches
// them; numbers compared as numbers, a missing key equal to its zero value
// so omitempty does not split groups) but for IgnoredFields, the fields that cannot change
// what is trained.
//
// A recorded run's configuration is read here too (SessionConfig: runconfig.Decode, the
// error naming the session; WriteSessionConfig writes it as a file run --config reads back,
// ReadLike reads it as run --like's source), and a run as the architecture table scores it (SessionRun,
// ReadSessionRun, ReadSessionDir; Gather sorts them into the finished runs the table is
// built from and the unfinished ones left out).
//
// It imports only windtunnel/sessions, windtunnel/diagnostics (numbers on plain slices) and
// windtunnel/sessions/runconfig (the configuration, a leaf) besides the standard library, so the
// dashboard (tui) may use it; it must not import lab, models, tui, figures or reports.
package derived
