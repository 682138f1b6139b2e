package sweep

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"windtunnel/sessions/index"
)

// Swept are the flags the grid varies, in its order: an axis of more than one value or
// drawn from a distribution (a setting common to every point is left out).
func (g Grid) Swept() []string {
	var out []string
	for _, a := range g.Axes {
		if len(a.Values) > 1 || a.Dist != nil {
			out = append(out, a.Flag)
		}
	}
	return out
}

// Setting is the value the point gives flag (its --flag=value argument); "" when it gives
// none.
func (p Point) Setting(flag string) string {
	for _, a := range p.Args {
		if v, ok := strings.CutPrefix(a, "--"+flag+"="); ok {
			return v
		}
	}
	return ""
}

// Goal is the sweep's metric and goal: its sweep file's, else bit error (a), lower better.
func (g Grid) Goal() Metric {
	if g.Metric != nil {
		return *g.Metric
	}
	return Metric{Name: "bit_error", Goal: "minimize"}
}

// SortKeys are the keys SortPoints sorts by: index, state, name, the swept flags and the
// metrics (index.MetricFields).
func (m *Manifest) SortKeys() []string {
	return slices.Concat([]string{"index", "state", "name"}, m.Grid.Swept(), index.MetricFields)
}

// SortPoints sorts sts by key (SortKeys) in place, stably: a metric by value, the sweep's
// metric best first (reverse: worst first), the others ascending (reverse: descending),
// points without a value last either way; a flag's values as numbers where both are numbers,
// else as text. An unknown key is an error naming the keys.
func (m *Manifest) SortPoints(sts []PointStatus, key string, reverse bool) error {
	if !slices.Contains(m.SortKeys(), key) {
		return fmt.Errorf("sort key %q: want one of %s", key, strings.Join(m.SortKeys(), ", "))
	}
	desc := reverse
	if g := m.Grid.Goal(); g.Name == key && g.Goal == "maximize" {
		desc = !desc
	}
	slices.SortStableFunc(sts, func(a, b PointStatus) int {
		var c int
		switch {
		case key == "index":
			c = cmp.Compare(a.Index, b.Index)
		case key == "state":
			c = cmp.Compare(a.State, b.State)
		case key == "name":
			c = cmp.Compare(a.Name, b.Name)
		case slices.Contains(index.MetricFields, key):
			va, oka := a.metric(key)
			vb, okb := b.metric(key)
			if m, ok := index.MissingLast(oka, okb); ok {
				return m
			}
			c = cmp.Compare(va, vb)
		default:
			sa, sb := a.Setting(key), b.Setting(key)
			if m, ok := index.MissingLast(sa != "", sb != ""); ok {
				return m
			}
			c = index.CompareSetting(sa, sb)
		}
		if desc {
			return -c
		}
		return c
	})
	return nil
}

// Settings are the sweep's swept flags and each point's values of them, by the absolute
// path of the point's session (index.Settings): what the run picker shows of a sweep's
// folder beside the metrics.
func (m *Manifest) Settings() index.Settings {
	s := index.Settings{Flags: m.Grid.Swept(), Values: map[string]map[string]string{}}
	for _, p := range m.Points {
		abs, err := filepath.Abs(m.SessionPath(p))
		if err != nil {
			continue
		}
		vs := map[string]string{}
		for _, f := range s.Flags {
			if v := p.Setting(f); v != "" {
				vs[f] = v
			}
		}
		s.Values[abs] = vs
	}
	return s
}

// SettingsText is the sweep's settings against its results, as sweep status --settings
// prints it: a row per point in sts's order with its index, state, the value of each swept
// flag, bit error (a) and (b), the sweep's metric where it is another, and its name; then,
// when a done point has the metric, the best. Print it through sessions.SafeLines.
func (m *Manifest) SettingsText(sts []PointStatus) string {
	var b strings.Builder
	goal := m.Grid.Goal()
	swept := m.Grid.Swept()
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"point", "state"}
	head = append(head, swept...)
	head = append(head, "(a)", "(b)")
	extra := goal.Name != "bit_error" && goal.Name != "bit_error_position" && goal.Name != "bit_error_sample"
	if extra {
		head = append(head, goal.Name)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, s := range sts {
		row := []string{strconv.Itoa(s.Index), string(s.State)}
		for _, f := range swept {
			row = append(row, cmp.Or(s.Setting(f), "-"))
		}
		row = append(row, s.metricText("bit_error"), s.metricText("bit_error_sample"))
		if extra {
			row = append(row, s.metricText(goal.Name))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	// The names after the aligned columns, which they would widen.
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	b.Reset()
	for i, l := range lines {
		name := "name"
		if i > 0 {
			name = sts[i-1].Name
		}
		fmt.Fprintln(&b, l+"  "+name)
	}
	if best, ok := Best(sts, goal); ok {
		fmt.Fprintf(&b, "best %s (%s) of the points done: %s, %s\n", goal.Name, goal.Goal, sts[best].Name, sts[best].metricText(goal.Name))
	}
	return b.String()
}

// Coordinates are the sweep's points for a parallel-coordinates figure
// (figures.Parallel): an axis per swept flag, then the metric; a row per point that has
// the metric (done or not), its values as text (the figure decides which axes are numbers).
func (m *Manifest) Coordinates(sts []PointStatus) (axes []string, rows [][]string, metric Metric) {
	metric = m.Grid.Goal()
	axes = append(m.Grid.Swept(), metric.Name)
	for _, s := range sts {
		v, ok := s.metric(metric.Name)
		if !ok {
			continue
		}
		row := make([]string, 0, len(axes))
		for _, f := range axes[:len(axes)-1] {
			row = append(row, s.Setting(f))
		}
		rows = append(rows, append(row, strconv.FormatFloat(v, 'g', -1, 64)))
	}
	return axes, rows, metric
}
