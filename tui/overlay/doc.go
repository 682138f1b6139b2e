// Package overlay is the comparison view of several sessions (replay A B C): bit error (a),
// (b) or KL over steps on one chart, each run labelled by what differs in its
// configuration, the seeds of one configuration (sessions/derived's rule, as compare
// --from, report and plot group runs) drawn as their mean in a ± sd band, with a scrubbing
// cursor whose values the legend lists. It draws with the dashboard's styles, charts and
// help (tui/look), shares the dashboard's key bindings, options and program runner (tui),
// and reads the pass line, the seed bands and the grouping from sessions/derived.
//
// Where things live: model.go the Model (its state, New, Update, Run, feed polling);
// keys.go its key table and scrubbing cursor; groups.go the labels and the seed groups
// (Groups); band.go the metrics and the band on the union of the seeds' steps; chart.go
// the legend and the chart.
//
// Like the dashboard it only reads its feeds (never lab or models): it imports tui,
// tui/look, sessions and sessions/derived.
package overlay
