package export

import (
	"fmt"
	"io"

	"windtunnel/sessions"
)

// Check refuses a format and a kind of row export does not write, naming export's flag:
// format csv, jsonl or tensorboard; what scalars, per-position, snapshots (JSON Lines only)
// or events, and for tensorboard (event files of the scalars and histograms) scalars only.
func Check(format, what string) error {
	if format == "tensorboard" {
		if what != "scalars" {
			return fmt.Errorf("--what %q: --format tensorboard writes the scalars and histograms; leave --what out", what)
		}
		return nil
	}
	if format != "csv" && format != "jsonl" {
		return fmt.Errorf("--format %q: want csv, jsonl or tensorboard", format)
	}
	switch what {
	case "scalars", "per-position", "events":
	case "snapshots":
		if format != "jsonl" {
			return fmt.Errorf("--what snapshots: nested tables; use --format jsonl")
		}
	default:
		return fmt.Errorf("--what %q: want scalars, per-position, snapshots or events", what)
	}
	return nil
}

// Write writes what of the session (Check's kinds) in format: the operator events
// (Events), or the records (Records).
func Write(r *sessions.Reader, w io.Writer, format, what string) error {
	if what == "events" {
		return Events(r, w, format)
	}
	return Records(r, w, format, what)
}
