// Package tui is the terminal dashboard of windtunnel, built on bubbletea v1, lipgloss and
// ntcharts. One component per pane (run, bit error, attention focus, ablation) plus a step
// scrubber, all fed by a sessions.Feed whether the run is live or replayed: the panes query
// the feed up to the current step, so scrubbing moves every pane at once. It imports only
// windtunnel/sessions: it reads records and sends operator events, never touching models.
//
// Entry points: New builds the root tea.Model, Run runs it as a program until q, ctrl+c or
// the context ends.
package tui
