// Package bench measures the training step (windtunnel bench): Step times windtunnel's
// step on a configuration and the project's PyTorch reference (scripts/torch_reference.py,
// found with FindTorch; RunTorch runs it with TorchArgs, the one command line made from the
// configuration: its model, batch, AdamW step, initialisation and seed) on the same model,
// batch and AdamW step, side by side; MedianRow folds repetitions, BLASRatio compares backends pair by pair, PrintTable
// and PrintBLASRatios print them; Plan is the command's whole grid (presets × devices ×
// backends, repeated, StepArgs giving run's flags for each; Check refuses what it does not
// time, Run times it); Accuracy times both to 0.05 bits (a). Dashboard measures
// what the dashboard costs the trainer: one run, the dashboard on and off in alternating
// windows in the same process, a key typed at intervals (DashOptions.Check refuses options it
// cannot run).
//
// The configurations are run's flags built as run builds them (runconfig.FromArgs: StepArgs
// for each row, AccuracyConfig, DashboardConfig); bench builds trainers from them (lab) and,
// for the dashboard, a session and live feed (lab/launch) shown by the dashboard (tui). It
// imports lab, lab/launch, models/arch, sessions/runconfig, sessions, sessions/derived and
// tui.
package bench
