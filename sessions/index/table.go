package index

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"windtunnel/sessions"
)

// WriteTable writes the runs as aligned columns (ls): state, task, model, step, bit error
// (a), pid, a column for sortKey when the table has none, and the session (relative to wd
// when under it); text from a session or a socket is made safe to print.
func WriteTable(w io.Writer, rows []Run, sortKey, wd string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	extra := sortKey != "" && !shown(sortKey)
	head := "STATE\tTASK\tMODEL\tSTEP\tBIT ERROR (a)\tPID\t"
	if extra {
		head += sessions.SafeText(strings.ToUpper(sortKey)) + "\t"
	}
	fmt.Fprintln(tw, head+"SESSION")
	for _, r := range rows {
		be, pid := "-", "-"
		if r.BitError != nil {
			be = fmt.Sprintf("%.4f", *r.BitError)
		}
		if r.Pid > 0 {
			pid = fmt.Sprint(r.Pid)
		}
		state := r.State
		if r.Note != "" {
			state += " (" + r.Note + ")"
		}
		path := r.Path
		if rel, err := filepath.Rel(wd, path); err == nil && wd != "" && !strings.HasPrefix(rel, "..") {
			path = rel
		}
		col := ""
		if extra {
			col = "-"
			if v, ok := r.Field(sortKey); ok {
				col = sessions.SafeText(FieldText(v))
			}
			col += "\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s%s\n", sessions.SafeText(state), sessions.SafeText(r.Task), sessions.SafeText(r.Model),
			r.Step, r.Steps, be, pid, col, sessions.SafeText(path))
	}
	return tw.Flush()
}

// shown reports whether the table has a column for key.
func shown(key string) bool {
	switch strings.ToLower(key) {
	case "state", "task", "model", "step", "bit_error", "bit_error_position", "pid", "path":
		return true
	}
	return false
}
