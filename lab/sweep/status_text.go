package sweep

import (
	"fmt"
	"strings"
)

// StatusText is the sweep's state as sweep status prints it: a line naming the sweep, its
// grid and its Slurm jobs, a line per point (index, state, step, name, detail), and the
// tally. Print it line by line through sessions.SafeText: names and details may come from
// files.
func (m *Manifest) StatusText(sts []PointStatus) string {
	var b strings.Builder
	jobs := make([]string, len(m.Jobs))
	for i, j := range m.Jobs {
		jobs[i] = j.ID
	}
	fmt.Fprintf(&b, "sweep %s: %d points (%s)", m.Dir(), len(m.Points), m.Grid.Describe())
	if len(jobs) > 0 {
		fmt.Fprintf(&b, ", Slurm jobs %s", strings.Join(jobs, ", "))
	}
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "%5s  %-8s %13s  %s\n", "point", "state", "step", "name")
	for _, s := range sts {
		step := fmt.Sprintf("%d/%d", s.Step, s.Planned)
		line := fmt.Sprintf("%5d  %-8s %13s  %s", s.Index, s.State, step, s.Name)
		if s.Detail != "" {
			line += "  (" + s.Detail + ")"
		}
		fmt.Fprintln(&b, line)
	}
	fmt.Fprintln(&b, Of(sts).Tally())
	return b.String()
}
