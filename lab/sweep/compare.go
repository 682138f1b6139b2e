package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"windtunnel/sessions/derived"
)

// ParseList splits a comma list of a flag (--tasks, --models), dropping empty entries and
// repeats; an entry not in allowed, or an empty list, is an error naming the flag.
func ParseList(flag, s string, allowed []string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !slices.Contains(allowed, p) {
			return nil, fmt.Errorf("--%s %q: want a comma list of %s", flag, p, strings.Join(allowed, ", "))
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--%s is empty: want a comma list of %s", flag, strings.Join(allowed, ", "))
	}
	return out, nil
}

// CompareGrid is the grid of a comparison: task × model × seed 1..seeds, every point run
// with the preset and, when steps > 0, that many steps, so that each is the run `windtunnel
// run --preset P --task T --model M --seed S [--steps N]` makes.
func CompareGrid(tasks, models []string, preset string, steps, seeds int) Grid {
	g := Grid{Axes: []Axis{{Flag: "task", Values: tasks}, {Flag: "model", Values: models}, {Flag: "preset", Values: []string{preset}}}}
	if steps > 0 {
		g.Axes = append(g.Axes, Axis{Flag: "steps", Values: []string{strconv.Itoa(steps)}})
	}
	vs := make([]string, seeds)
	for i := range vs {
		vs[i] = strconv.Itoa(i + 1)
	}
	g.Axes = append(g.Axes, Axis{Flag: "seed", Values: vs})
	return g
}

// Scores reads each point's session (derived.ReadSessionRun) and returns the scores of the
// finished ones, in the points' order, and for each other point a line saying why it is not
// scored ("<point> not scored: <why>").
func (m *Manifest) Scores() (runs []derived.RunScore, unscored []string) {
	for _, p := range m.Points {
		sr, err := derived.ReadSessionRun(m.SessionPath(p))
		switch {
		case err != nil:
			unscored = append(unscored, fmt.Sprintf("%s not scored: %v", p.Name, err))
		case !sr.Done:
			unscored = append(unscored, fmt.Sprintf("%s not scored: %s", p.Name, sr.Unfinished()))
		default:
			runs = append(runs, sr.Score)
		}
	}
	return runs, unscored
}
