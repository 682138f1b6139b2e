// Package overlay is the comparison view of several sessions (replay A B C): bit error (a),
// (b) or KL over steps on one chart, or the three a chart each (m), with the pass line (on
// (a)) and the context-free level (on (a) and (b)); each run labelled by the name a person
// gave it (sessions.Labels, read from a feed that has them), else by what differs in its
// configuration, the seeds of one configuration (sessions/derived's rule, as compare --from,
// report and plot group runs) drawn as their mean in a ± sd band, their own curves inside it
// on s, the k-th seed of a group with the k-th of seedGlyphs. The three charts (m) share their
// x axis column for column (look.Chart's LabelW and Margin), stacked or side by side; the
// legend takes the richest of its densities (every value wrapped; a line per series and
// one naming the seeds; a line per series) that leaves the charts their room, each series'
// verdict first so that it is never the part left out. The y axis fits the data (z: from
// 0, with Bayes and every reference line), and the reference lines it leaves out (or cannot
// label) are named above the chart. A scrubbing cursor's step is the
// one the legend gives every series' values at, with its verdict against the pass line
// (derived.VerdictOf; a band's on the mean of its seeds, with the seeds passing) and the
// heads an operator switched off in its runs (⊘, marked on the curve too).
//
// It draws with the dashboard's styles, charts and help (tui/look), shares the dashboard's
// key bindings, options, program runner and legend (tui), and reads the pass line, the
// context-free level, the seed bands and the grouping from sessions/derived.
//
// m also shows the training loss (every record's, read with Feed.Scalars); x puts the runs
// on their wall-clock time instead of steps, their pauses left out (derived.ActiveRecords;
// a band at its seeds' mean time per step;
// sessions without wall times keep the steps, and the title says so); + and − smooth the
// lines by TensorBoard's moving average (look.EMA), the legend's values staying raw.
//
// Where things live: model.go the Model (its state, New, Update, Run, reading the feeds);
// keys.go its key table and scrubbing cursor; groups.go the labels and the seed groups
// (Groups); band.go the metrics and the band on the union of the seeds' steps; verdict.go
// the verdicts, the reference levels and the heads switched off; legend.go the title, the
// legend and the notes; panels.go the charts' layout; chart.go the charts (look.Chart);
// axes.go the loss's records, the wall-clock axis and the smoothing.
//
// Like the dashboard it only reads its feeds (never lab or models): it imports tui,
// tui/look, sessions and sessions/derived.
package overlay
