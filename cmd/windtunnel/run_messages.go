package main

import (
	"fmt"
	"windtunnel/backends/devices"

	"windtunnel/lab"
)

// runLong is run's --help text.
const runLong = "run trains a network on a tunnel — the transformer (--model transformer, the default) or a\n" +
	"baseline capacity-matched to it (mlp, mlp-prefix, lstm, mamba) — evaluating it on a fixed held-out\n" +
	"probe set, records everything in a session file, and prints a summary on stdout at the end: a\n" +
	"JSON line, or a few lines for a person when stdout is a terminal (--json: the JSON line there too).\n" +
	"While it runs it listens on a control socket: `windtunnel attach` opens the dashboard on it,\n" +
	"`windtunnel ls` lists it. --detach starts it in the background and returns at once.\n\n" +
	"Settings come from the preset, then a configuration file (--config FILE, TOML or YAML with the\n" +
	"keys `windtunnel info --config SESSION` writes) or a recorded run (--like SESSION), then the\n" +
	"flags given, each overriding the one before. The preset's evaluation, geometry and checkpoint\n" +
	"cadences are fitted to --steps (at most steps/12, steps/6 and steps/3), so a short run is still\n" +
	"evaluated along the way. A flag of another task (--k without --task hmm) or of another model\n" +
	"(--heads, --qk-lr, --value-lr: transformer; --mlp-input: mlp-prefix) is a usage error."

// deviceError says in one line why --device could not be opened: what is missing on this
// machine, with `windtunnel device` for the paths searched, instead of every path's loader
// error (they are in `windtunnel device --json`).
func deviceError(de *lab.DeviceError) error {
	why, ok := devices.Reason(de.Err)
	if !ok {
		return fmt.Errorf("--device %s: %w", de.Device, de.Err)
	}
	return fmt.Errorf("--device %s: %s (`windtunnel device` lists what was searched and how to add a path; --device cpu runs here)", de.Device, why)
}
