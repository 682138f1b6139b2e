// Package tui is the terminal dashboard of windtunnel, built on bubbletea v1, lipgloss and
// ntcharts. One component per pane (run, bit error, attention focus, ablation, key
// orthogonality, value manifold, frame-precision, loss, learning rate and gradient norm,
// system) plus a step scrubber, all fed by a sessions.Feed whether the run is live or
// replayed: the panes query the feed up to the current step, so scrubbing moves every pane
// at once, and the charts over steps (bit error, loss, learning rate, grad norm, steps/s)
// draw the whole run with a cursor line at that step and the values at it in their legends;
// z (at both ends), Z, the mouse wheel and a drag on the scrubber bar zoom them to a step
// range (curves.go). Smoothing
// (+/−) and the log-Y scale (y) are each chart's own, set on the focused pane. From 80×24 each pane is a tab under the run summary (the tabs around the focused
// one where not all fit); from 120×36 three pages (training, geometry and optimiser: the
// loss, learning-rate and gradient-norm charts and the system pane; ] and [ switch) show
// three panes each under the run summary, and from 160×48 four, the run pane too, still
// under the run summary (its two lines head the screen at every size); below 80×24 the screen
// says it is too small. The run summary and the Run pane give the verdict of the newest
// evaluation against the tunnel's pass line (derived.VerdictOf: pass or FAIL once the run
// has ended there, passing or not yet while it trains), and the full help ends in a legend:
// what bit error (a) and (b) are, which is the paper's headline and which the authors'
// code reports, the pass line and the reference levels. Nothing is cut within a word: lines
// that do not fit end in " …" after a whole word, legends wrap and titles take a shorter
// form. Of the project it imports only windtunnel/sessions, windtunnel/sessions/derived (the
// pass line, the verdict, the context-free level), windtunnel/sessions/runconfig (the stored
// configuration, decoded: a leaf), windtunnel/diagnostics (types) and its own tui/look: it
// reads records and sends operator events, never touching the trainer or models.
//
// Every chart has axis titles and glyphs that read without colour; where two curves fall on
// one cell a combined glyph shows both (⊙ bit error (a) on (b), ◉ the model's entropy on
// the Bayes curve). The bit-error chart has reference lines: Bayes at 0, the pass threshold
// of compare (derived.PassBits) and, for a bijection, the context-free level (1.107 bits at
// V=20); before the first evaluation the pane says at which step it comes (eval_every).
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
//     stop run, not offered to a read-only viewer; cancel; on a paused run it says so, offers
//     resume and detach first, and detach leaves it paused: Stats.Paused, Stats.Fate), drawn
//     over the screen and taking every key while open; leaving (tea.Quit, or LeftMsg when
//     Options.Embedded).
//   - feed.go: feed pacing: polling the feed's Changed signal, redraw rate, sending events.
//   - cache.go: re-reading the feed up to the step, and the evaluation, snapshot and
//     geometry caches.
//   - layout.go: the screen's geometry: the layouts and the sizes they start at, the chrome
//     heights (the one place they are counted), the pages and the panes' sizes.
//   - render.go: drawing the screen from cached parts: body, tab and page bars, boxes,
//     scrubber line, footer and full help (under the run summary at every size, in pages
//     that ? turns where it does not fit), or the too-small notice.
//   - pane.go: the pane interface and paneBase, the state every pane embeds.
//   - curves.go: the step range the charts over steps show (the whole run or the zoom:
//     z, Z, the mouse wheel, a drag on the scrubber bar), their cursor line and the values
//     at it.
//   - scalars.go: the scalars every record carries over the whole run (refreshScalars reads
//     them, thinned, denser when zoomed, with the run's pauses, only while a pane showing
//     them is on screen), each chart's own settings (chartView: smoothing and log-Y), the
//     Loss pane and the LR & grad norm pane (raw values dotted, their moving average as the
//     line: + and − step the smoothing, look.EMA, TensorBoard's rule), where the run has the user's own metrics u charting
//     each in the Loss chart's place (usermetrics.go: a replayed session's, or a run's in
//     this process); system.go the System
//     pane: a live run's process (its CPU, memory and threads, sampled every sysInterval as
//     messages, from /proc: procstat_linux.go; Options.RunPID names it) beside what the
//     session recorded (speed, wall time without pauses: derived.ActiveWall, device, GPU
//     share), saying which is which; syshistory.go its history charts (steps/s over steps,
//     and a ring of the process's samples: CPU and memory).
//   - run.go, biterror.go (+ bitcharts.go, its two charts, and reference.go, their
//     reference levels and what it reads of the configuration), attention.go, ablation.go
//     (+ effects.go, its ablation table), keyortho.go, manifold.go (+ simplex.go, its
//     belief-simplex view on hmm runs), frame.go: the panes; scrub.go the step scrubber.
//   - shared.go: the context the root hands the panes; keys.go the key table (KeyMap,
//     DefaultKeys: the comparison view shares its bindings), help.go the one-line help
//     views and the full help's legend (Legend, the comparison view's too), format.go the
//     dashboard's own number formats.
//   - tui/look holds what the dashboard and the comparison view both draw with: the
//     styles, text and box primitives, the line charts (axis titles, reference lines,
//     combined glyphs) and the full help's layout.
//   - program.go: Options (Renderer: the lipgloss renderer of the dashboard's terminal, one
//     per SSH viewer; the mouse is on, for the wheel) and RunProgram, the one program runner behind Run and the comparison
//     view's (tui/overlay), whose options ProgramOptions gives a host running New's model in
//     its own program.
//
// A replay, a run that has ended and a read-only viewer cannot act on the run: the keys that
// would (pause, head toggles, restore, stop) are disabled in the key table (shared.canAct),
// so no hint, help page or pane legend offers them, and pressed they only say why.
//
// Entry points: New builds the root tea.Model, Run runs it as a program until q, ctrl+c or
// the context ends (on a live run q asks first, and Stats.Detached or Stats.Stopped tell
// the caller what the user chose: keeping a detached run going is the caller's job;
// Options.ReadOnly hides the keys that act on the run, Options.Embedded sends LeftMsg to a
// host program instead of quitting). The comparison of several sessions on one chart
// (replay A B C) is tui/overlay.
package tui
