package sweep

import (
	"fmt"
	"strconv"
)

// Assemble is the grid a sweep's command line gives: the axes of a sweep file (file, ""
// for none), each --set in turn (sets: FLAG=V1,V2; one replaces the file's axis of its
// flag, and a flag may be set once), the tasks and the models listed (nil: not listed; a
// list and an axis of the same flag are an error) and seeds 1..seeds (0: not given). Its
// axes are the task and the model first (bijection and transformer unless given), the
// others as given, the seed last (1 unless given); ok is false when nothing was given.
func Assemble(file string, sets []string, tasks, models []string, seeds int) (g Grid, ok bool, err error) {
	var given Grid
	if file != "" {
		if given, err = ReadFile(file); err != nil {
			return g, false, err
		}
	}
	fromSet := map[string]bool{}
	for _, s := range sets {
		a, err := ParseSet(s)
		if err != nil {
			return g, false, err
		}
		if fromSet[a.Flag] {
			return g, false, fmt.Errorf("sweep: --set %s given twice", a.Flag)
		}
		fromSet[a.Flag] = true
		given.Set(a)
	}
	for _, l := range []struct {
		flag, name string
		values     []string
	}{{"tasks", "task", tasks}, {"models", "model", models}} {
		if l.values == nil {
			continue
		}
		if given.Has(l.name) {
			return g, false, fmt.Errorf("sweep: --%s and a %s axis (--set or the sweep file): give one", l.flag, l.name)
		}
		given.Set(Axis{Flag: l.name, Values: l.values})
	}
	if seeds > 0 {
		if given.Has("seed") {
			return g, false, fmt.Errorf("sweep: --seeds and a seed axis (--set or the sweep file): give one")
		}
		vals := make([]string, seeds)
		for i := range vals {
			vals[i] = strconv.Itoa(i + 1)
		}
		given.Set(Axis{Flag: "seed", Values: vals})
	}
	if len(given.Axes) == 0 {
		return g, false, nil
	}
	axis := func(name, def string) Axis {
		for _, a := range given.Axes {
			if a.Flag == name {
				return a
			}
		}
		return Axis{Flag: name, Values: []string{def}}
	}
	g.Axes = append(g.Axes, axis("task", "bijection"), axis("model", "transformer"))
	for _, a := range given.Axes {
		if a.Flag != "task" && a.Flag != "model" && a.Flag != "seed" {
			g.Axes = append(g.Axes, a)
		}
	}
	g.Axes = append(g.Axes, axis("seed", "1"))
	g.Metric, g.Random = given.Metric, given.Random // the sweep file's
	return g, true, nil
}
