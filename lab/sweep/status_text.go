package sweep

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"windtunnel/sessions"
	"windtunnel/sessions/index"
)

// StatusText is the sweep's state as sweep status prints it: a line naming the sweep, its
// grid and its Slurm jobs, a line per point (index, state, step, bit error (a) and (b) of its
// newest evaluation, the sweep's metric when it has one of its own, name, detail), the tally
// and, with a metric, its best point. Print it line by line through sessions.SafeText: names
// and details may come from files.
func (m *Manifest) StatusText(sts []PointStatus) string {
	var b strings.Builder
	jobs := make([]string, len(m.Jobs))
	for i, j := range m.Jobs {
		jobs[i] = j.ID
	}
	fmt.Fprintf(&b, "sweep %s: %s (%s)", m.Dir(), sessions.Plural(len(m.Points), "point"), m.Grid.Describe())
	if len(jobs) > 0 {
		fmt.Fprintf(&b, ", Slurm jobs %s", strings.Join(jobs, ", "))
	}
	fmt.Fprintln(&b)
	metric := m.Grid.Metric
	extra := metric != nil && metric.Name != "bit_error" && metric.Name != "bit_error_position" && metric.Name != "bit_error_sample"
	head := fmt.Sprintf("%5s  %-8s %13s  %7s  %7s  ", "point", "state", "step", "(a)", "(b)")
	if extra {
		head += fmt.Sprintf("%8s  ", metric.Name)
	}
	fmt.Fprintln(&b, head+"name")
	for _, s := range sts {
		step := fmt.Sprintf("%d/%d", s.Step, s.Planned)
		line := fmt.Sprintf("%5d  %-8s %13s  %7s  %7s  ", s.Index, s.State, step, s.metricText("bit_error"), s.metricText("bit_error_sample"))
		if extra {
			line += fmt.Sprintf("%8s  ", s.metricText(metric.Name))
		}
		line += s.Name
		if s.Detail != "" {
			line += "  (" + s.Detail + ")"
		}
		fmt.Fprintln(&b, line)
	}
	fmt.Fprintln(&b, Of(sts).Tally())
	if metric != nil {
		if best, ok := Best(sts, *metric); ok {
			fmt.Fprintf(&b, "best %s (%s) of the points done: %s, %s\n", metric.Name, metric.Goal, sts[best].Name, sts[best].metricText(metric.Name))
		}
	}
	return b.String()
}

// run is the point as an index row of its newest evaluation's metrics.
func (s PointStatus) run() index.Run {
	if s.Metrics == nil {
		return index.Run{}
	}
	return index.Run{Metrics: s.Metrics, BitError: s.Metrics.BitErrorPosition}
}

// metric is the value of a metric (index.MetricFields) of the point's newest evaluation.
func (s PointStatus) metric(name string) (float64, bool) {
	v, ok := s.run().Field(name)
	f, isNum := v.(float64)
	return f, ok && isNum
}

// metricText is the metric as status prints it (index.Run.MetricCell): four decimals, "-"
// without one.
func (s PointStatus) metricText(name string) string { return s.run().MetricCell(name) }

// Best is the index in sts of the done point with the best value of metric m (the lowest, or
// the highest when m.Goal is maximize); false when no done point has it.
func Best(sts []PointStatus, m Metric) (int, bool) {
	best, found := -1, false
	var bv float64
	for i, s := range sts {
		v, ok := s.metric(m.Name)
		if s.State != Done || !ok {
			continue
		}
		if !found || (m.Goal == "maximize" && v > bv) || (m.Goal != "maximize" && v < bv) {
			best, bv, found = i, v, true
		}
	}
	return best, found
}

// Report is what sweep status prints with --json: the folder, each point's status and the
// count of points in each state.
type Report struct {
	Dir    string        `json:"dir"`
	Points []PointStatus `json:"points"`
	Counts map[State]int `json:"counts"`
}

// ReadStatus is the status of every point (Status): the sessions, with squeue's view of
// the sweep's job arrays when it has any (squeue found on PATH). A queue that cannot be
// read is told to warn, and the sessions alone decide.
func (m *Manifest) ReadStatus(ctx context.Context, warn func(error)) Report {
	var q Queue
	if len(m.Jobs) > 0 {
		squeue, err := exec.LookPath("squeue")
		if err == nil {
			q, err = m.ReadQueue(ctx, squeue)
		}
		if err != nil {
			warn(err)
			q = nil
		}
	}
	sts := m.Status(q)
	return Report{Dir: m.Dir(), Points: sts, Counts: Counts(sts)}
}
