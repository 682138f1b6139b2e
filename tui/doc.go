// Package tui is the terminal dashboard of windtunnel, built on bubbletea v1, lipgloss and
// ntcharts. One component per pane (run, bit error, attention focus, ablation, key
// orthogonality, value manifold, frame-precision) plus a step scrubber, all fed by a
// sessions.Feed whether the run is live or replayed: the panes query the feed up to the
// current step, so scrubbing moves every pane at once. Below 160×48 each pane is a tab; at
// 160×48 and above two grid pages of four panes each (training and geometry, ] and [
// switch) show at once. It imports only windtunnel/sessions: it reads records and sends
// operator events, never touching models.
//
// The panes only read what the lab derived and recorded: the ablation pane takes the head
// table and the costliest head from the snapshot (HeadDelta, CostliestHead), the
// frame-precision pane the settle steps from Frame.Settle; sessions written before those
// were recorded show the panes without them.
//
// Drawing is cached: every pane keeps its rendered view until what it shows changes (its
// size, focus and toggles, or the evaluations and snapshot up to the current step), the
// root keeps each boxed pane, and the evaluations and snapshots are read again only for
// steps their caches do not cover, so a co-running trainer pays for what changed only.
//
// Where things live:
//   - model.go: the root Model (its state, New, Update, clone) and Stats.
//   - route.go: key routing: global keys, focus and pages, pause, then the panes and the
//     scrubber; the status line for sent events.
//   - quit.go: the quit dialog q and ctrl+c open on a live run (detach: the run goes on;
//     stop run; cancel), drawn over the screen and taking every key while open.
//   - feed.go: feed pacing: polling the feed's Changed signal, redraw rate, sending events.
//   - cache.go: re-reading the feed up to the step, and the evaluation, snapshot and
//     geometry caches.
//   - layout.go: the screen's geometry: default and grid sizes, the chrome heights (the one
//     place they are counted), the grid pages and the panes' sizes.
//   - render.go: drawing the screen from cached parts: body, tab and page bars, boxes,
//     scrubber line, footer and full help.
//   - draw.go: text and box primitives (padLine, fit, box, hcat, vcat).
//   - pane.go: the pane interface and paneBase, the state every pane embeds.
//   - run.go, biterror.go, attention.go, ablation.go (+ effects.go, its ablation table),
//     keyortho.go, manifold.go, frame.go: the panes; scrub.go the step scrubber.
//   - shared.go: the context the root hands the panes; keys.go the key table, help.go the
//     help views, styles.go, chart.go and format.go the styles, line charts and numbers.
//   - program.go: Options (Renderer: the lipgloss renderer of the dashboard's terminal, one
//     per SSH viewer) and the one program runner behind Run and RunOverlay, whose options
//     ProgramOptions gives a host running New's model in its own program;
//     overlay.go: the comparison view.
//
// Entry points: New builds the root tea.Model, Run runs it as a program until q, ctrl+c or
// the context ends (on a live run q asks first, and Stats.Detached or Stats.Stopped tell
// the caller what the user chose: keeping a detached run going is the caller's job);
// NewOverlay and RunOverlay do the same for the comparison of several sessions' bit error
// on one chart.
package tui
