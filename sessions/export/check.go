package export

import (
	"fmt"
	"io"

	"windtunnel/sessions"
)

// Check refuses a format and a kind of row export does not write, naming export's flag:
// format csv or jsonl; what scalars, per-position, snapshots (JSON Lines only) or events.
func Check(format, what string) error {
	if format != "csv" && format != "jsonl" {
		return fmt.Errorf("--format %q: want csv or jsonl", format)
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
