// Package tui is the bubbletea program of windtunnel: one component per pane (run, bit error,
// attention focus, frame-precision, ablation, replay), fed by a sessions Feed whether the run
// is live or replayed. It never imports models: it reads records and sends lab commands.
package tui
