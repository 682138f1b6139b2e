// Package reports writes the reproduction report of Paper I ("The Bayesian Geometry of
// Transformer Attention", arXiv 2512.22471) from recorded sessions: one markdown table of
// the paper's claims, each with the paper's number, the authors' own code's number where
// known, the bench's measurement over seeds with the session files it comes from, the
// configuration, and a verdict with its reason (derived.Outcome: reproduced — the criterion met
// and the null not; consistent, not diagnostic — met by the null too; not reproduced; not
// measured); then the commands that regenerate every number and the bench's known departures
// from the authors' setup.
//
// Runs are pooled only when they are one configuration under the rule of sessions/derived
// (groups.go): a claim measured in several configurations has a row for each, named by what
// differs (derived.Labels, derived.Differences) or by the name its runs share
// (derived.CommonName), with its own n and pass count. Copies of one
// replicate (one configuration and seed, derived.Replicates: a re-run, a copied folder) count
// once (replicates.go), listed with where the copies are and whether they disagree. The
// geometry claims (key orthogonality, the value manifold, the frame and its dissociation, the
// belief simplex: simplex.go) are judged only on runs that learnt their task (nulls.go:
// derived.VerdictOfScores), and each row's null is the same run before it learnt (its first
// evaluation or earliest snapshot; the authors' key orthogonality and the belief simplex
// against the model at initialisation) or, for Paper II's
// speed-up, the spread of the baseline's seeds (derived.Beyond). Figures are linked relative
// to the report's own folder (figureLink), in report.md and in llm's alike.
//
// Load reads sessions (files or folders of sessions, sessions.Find), Build turns them into a
// Report, and Write renders it as DIR/report.md (FileName), with figures embedded when
// Options.Figures supplies them (drawn into DIR/fig, FigureDir); WritePrimitives writes
// `windtunnel primitives`' table beside it (PrimitivesTable, PrimitivesJSON). Besides Paper I's table and geometry claims it states the authors' frame statistic
// (frame.go: the J-lens ratio against the final frame, and the frame-precision
// dissociation) and Paper II's two timescales (timescales.go): on the authors' own
// experiment, from a `windtunnel timescales --json` result beside the sessions
// (derived.TimescalesFile, or a *.json file given; LoadTimescales), and on the tunnels, one
// row per pair of configurations that differ only in the value projection's learning-rate
// multiplier (AdamW and SGD pairs apart), each verdict's reason naming where a disagreement
// comes from (paper, bench, scale or measure). The commands that regenerate every number
// (commands.go) are the flags of `windtunnel run` that build each session's configuration
// (runconfig.Args), a compare for a folder's grid. The package depends on sessions/runconfig (the
// configuration, presets and run's flags), models/arch and tunnels (names), sessions and
// sessions/derived (the architecture table, the grouping rule, the dissociation rule); a
// figure renderer is plugged in by the caller.
package reports
