// Package tui is the terminal dashboard of windtunnel, built on bubbletea v1, lipgloss and
// ntcharts. One component per pane (run, bit error, attention focus, ablation, key
// orthogonality, value manifold, frame-precision) plus a step scrubber, all fed by a
// sessions.Feed whether the run is live or replayed: the panes query the feed up to the
// current step, so scrubbing moves every pane at once. Below 160×48 each pane is a tab; at
// 160×48 and above two grid pages of four panes each (training and geometry, ] and [
// switch) show at once. It imports only windtunnel/sessions: it reads records and sends
// operator events, never touching models.
//
// Drawing is cached: every pane keeps its rendered view until what it shows changes (its
// size, focus and toggles, or the evaluations and snapshot up to the current step), the
// root keeps each boxed pane, and the evaluations and snapshots are read again only for
// steps their caches do not cover, so a co-running trainer pays for what changed only.
//
// Entry points: New builds the root tea.Model, Run runs it as a program until q, ctrl+c or
// the context ends; NewOverlay and RunOverlay do the same for the comparison of several
// sessions' bit error on one chart.
package tui
