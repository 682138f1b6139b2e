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
// (a), pid, the name and tags when a run has any, a column for sortKey when the table has
// none, and the session (relative to wd when under it); text from a session or a socket is
// made safe to print.
func WriteTable(w io.Writer, rows []Run, sortKey, wd string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	extra := sortKey != "" && !shown(sortKey)
	labelled := false
	for _, r := range rows {
		labelled = labelled || r.Labels.Name != "" || len(r.Labels.Tags) > 0
	}
	head := "STATE\tTASK\tMODEL\tSTEP\tBIT ERROR (a)\tPID\t"
	if labelled {
		head += "NAME\tTAGS\t"
	}
	if extra {
		head += sessions.SafeText(strings.ToUpper(sortKey)) + "\t"
	}
	fmt.Fprintln(tw, head+"SESSION")
	for _, r := range rows {
		c := r.Cells(wd)
		col := ""
		if labelled {
			col = c.Name + "\t" + c.Tags + "\t"
		}
		if extra {
			v, ok := r.Field(sortKey)
			if !ok {
				v = ""
			}
			col += LabelCell(FieldText(v)) + "\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n", c.State, c.Task, c.Model, c.Step, c.BitError, c.Pid, col, c.Session)
	}
	return tw.Flush()
}

// shown reports whether the table has a column for key.
func shown(key string) bool {
	switch strings.ToLower(key) {
	case "state", "task", "model", "step", "bit_error", "bit_error_position", "pid", "path", "name", "tag":
		return true
	}
	return false
}

// LabelCell is a cell of text from a session: made safe to print, "-" when empty.
func LabelCell(s string) string {
	if s == "" {
		return "-"
	}
	return sessions.SafeText(s)
}

// LabelsLine is the line `windtunnel tag` prints of a run's labels: "PATH: name N · tags
// A,B · note N" (LabelCell each, the note to its first line, " …" marking the rest).
func LabelsLine(path string, l sessions.Labels) string {
	note := l.Note
	if i := strings.IndexByte(note, '\n'); i >= 0 {
		note = note[:i] + " …"
	}
	return fmt.Sprintf("%s: name %s · tags %s · note %s", sessions.SafeText(path), LabelCell(l.Name), LabelCell(strings.Join(l.Tags, ",")), LabelCell(note))
}

// Cells are a run's cells of ls's table (WriteTable) and the run pickers (tui/runpicker),
// each made safe to print.
type Cells struct {
	// State is the state, its note in parentheses ("running (no answer)").
	State, Task, Model string
	// Step is "step/steps"; BitError bit error (a) to 4 decimals, "-" without one; Pid a
	// live run's process, "-" for a recorded one.
	Step, BitError, Pid string
	// Name and Tags (comma-separated) are the run's labels, "-" when none.
	Name, Tags string
	// Session is the session's path, relative to the table's folder when under it.
	Session string
}

// MetricCell is the run's metric key (MetricFields) as ls, sweep status and the run
// pickers write it: four decimals, "-" without one.
func (r Run) MetricCell(key string) string {
	if v, ok := r.Field(key); ok {
		if f, ok := v.(float64); ok {
			return fmt.Sprintf("%.4f", f)
		}
	}
	return "-"
}

// Cells returns the run's cells, its session relative to wd when under it.
func (r Run) Cells(wd string) Cells {
	c := Cells{Task: sessions.SafeText(r.Task), Model: sessions.SafeText(r.Model), Step: fmt.Sprintf("%d/%d", r.Step, r.Steps),
		BitError: r.MetricCell("bit_error"), Pid: "-", Name: LabelCell(r.Labels.Name), Tags: LabelCell(strings.Join(r.Labels.Tags, ","))}
	if r.Pid > 0 {
		c.Pid = fmt.Sprint(r.Pid)
	}
	c.State = r.State
	if r.Note != "" {
		c.State += " (" + r.Note + ")"
	}
	c.State = sessions.SafeText(c.State)
	path := r.Path
	if rel, err := filepath.Rel(wd, path); err == nil && wd != "" && !strings.HasPrefix(rel, "..") {
		path = rel
	}
	c.Session = sessions.SafeText(path)
	return c
}
