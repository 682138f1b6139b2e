package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tunnels"
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
// scored ("<point> not scored: <why>"; "not trained yet" without a session).
func (m *Manifest) Scores() (runs []derived.RunScore, unscored []string) {
	for _, p := range m.Points {
		sr, err := derived.ReadSessionRun(m.SessionPath(p))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			unscored = append(unscored, p.Name+" not scored: not trained yet")
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

// FromSessions is the comparison `compare --from DIR` rebuilds from a folder's finished
// sessions without training (derived.ReadSessionDir, derived.Gather): the architecture
// table over their tasks and models (derived.Table, in tunnels' and arch's order), their
// seeds and wall time, and a line for each file skipped ("skipped: why", "skipped FILE:
// why").
type FromSessions struct {
	Cells   []derived.Cell
	Seeds   int
	WallS   float64
	Skipped []string
}

// ErrNoFinished is returned (wrapped) by ReadFromSessions for a folder with no finished
// session; its other errors are the folder's (not one, not readable).
var ErrNoFinished = errors.New("no finished sessions")

// ReadFromSessions reads the comparison of the finished sessions in dir; a folder with none
// is an error wrapping ErrNoFinished.
func ReadFromSessions(dir string) (FromSessions, error) {
	var f FromSessions
	srs, errs, err := derived.ReadSessionDir(dir)
	if err != nil {
		return f, fmt.Errorf("--from: %w", err)
	}
	for _, e := range errs {
		f.Skipped = append(f.Skipped, "skipped: "+sessions.SafeLines(fmt.Sprint(e)))
	}
	fin := derived.Gather(srs)
	for _, sr := range fin.Unfinished {
		f.Skipped = append(f.Skipped, "skipped "+sessions.SafeText(sr.Score.Session)+": "+sessions.SafeText(sr.Unfinished()))
	}
	if len(fin.Runs) == 0 {
		return f, fmt.Errorf("compare --from %s: %w", dir, ErrNoFinished)
	}
	tasks := derived.Ordered(fin.Tasks, tunnels.Names())
	kinds := derived.Ordered(fin.Models, arch.Kinds())
	f.Cells, f.Seeds, f.WallS = derived.Table(fin.Runs, tasks, kinds), fin.Seeds, fin.WallS
	return f, nil
}
