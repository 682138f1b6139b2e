package reports

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

// Commands reconstructs, from each session's configuration, the command lines that
// regenerate every number: run in an empty folder they write sessions of the same
// configurations (derived.KeyOf) with the same evaluation, snapshot and checkpoint cadences
// and geometry size. Each session's run is the fewest flags of `windtunnel run` over a
// preset that build it (runconfig.Args). In each folder, the largest set of sessions that
// are a compare's grid — every task × model × seeds 1..N, of one preset and one length, no
// other flag — is one `compare` into it (a folder is one sweep); each other session is a
// `run` at its own path (after a `mkdir -p` of a folder no compare makes). Then `compare
// --from` per folder for the architecture table, and `probe` per session with a snapshot
// for the geometry.
func Commands(runs []Run) []string {
	plans := make([]*plan, len(runs))
	var dirs []string
	for i, r := range runs {
		p := &plan{r: r}
		p.preset, p.args, p.err = runArgs(r)
		if len(p.args) == 1 && strings.HasPrefix(p.args[0], "--steps=") {
			p.steps = strings.TrimPrefix(p.args[0], "--steps=")
		}
		plans[i] = p
		if d := filepath.Dir(r.Path); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	var out, single []string
	for _, dir := range dirs {
		// The candidate grids of the folder, by preset and steps.
		grids := map[string][]*plan{}
		var order []string
		for _, p := range plans {
			if filepath.Dir(p.r.Path) != dir || p.err != nil || len(p.args) > 1 || (len(p.args) == 1 && p.steps == "") {
				continue
			}
			k := p.preset + "\x00" + p.steps
			if grids[k] == nil {
				order = append(order, k)
			}
			grids[k] = append(grids[k], p)
		}
		var best []*plan
		var tasks, models []string
		var seeds int
		for _, k := range order {
			if ts, ms, n, ok := compareGrid(grids[k]); ok && len(grids[k]) > len(best) {
				best, tasks, models, seeds = grids[k], ts, ms, n
			}
		}
		made := dir == "."
		if best != nil {
			cmd := fmt.Sprintf("windtunnel compare --preset %s --tasks %s --models %s --seeds %d", best[0].preset,
				strings.Join(tasks, ","), strings.Join(models, ","), seeds)
			if best[0].steps != "" {
				cmd += " --steps " + best[0].steps
			}
			out, made = append(out, cmd+" --out "+dir), true
			for _, p := range best {
				p.compared = true
			}
		}
		for _, p := range plans {
			if filepath.Dir(p.r.Path) != dir || p.compared {
				continue
			}
			if !made && p.err == nil {
				single, made = append(single, "mkdir -p "+dir), true
			}
			single = append(single, runCommand(p.r, p.preset, p.args, p.err))
		}
	}
	out = append(out, single...)
	for _, d := range dirs {
		out = append(out, "windtunnel compare --from "+d)
	}
	for _, r := range runs {
		if r.Snapshot != nil {
			out = append(out, "windtunnel probe "+r.Path)
		}
	}
	return out
}

// plan is how Commands regenerates one session: the preset and run's flags over it that
// build its configuration (steps: the --steps among them, "" for the preset's), or why
// none do, and whether a compare makes it.
type plan struct {
	r             Run
	preset, steps string
	args          []string
	err           error
	compared      bool
}

// compareGrid reports whether the plans are a compare's grid: every task × model with
// seeds 1..N each; it returns the tasks and models in the project's order and N.
func compareGrid(ps []*plan) (tasks, models []string, seeds int, ok bool) {
	bySeed := map[string][]uint64{}
	for _, p := range ps {
		c := p.r.Config
		if !slices.Contains(tasks, c.Task) {
			tasks = append(tasks, c.Task)
		}
		if !slices.Contains(models, c.Model) {
			models = append(models, c.Model)
		}
		k := c.Task + "/" + c.Model
		bySeed[k] = append(bySeed[k], c.Seed)
	}
	seeds = len(ps) / max(1, len(tasks)*len(models))
	for _, t := range tasks {
		for _, m := range models {
			if s := bySeed[t+"/"+m]; len(s) != seeds || !oneToN(s) {
				return nil, nil, 0, false
			}
		}
	}
	return derived.Ordered(tasks, tunnels.Names()), derived.Ordered(models, arch.Kinds()), seeds, len(ps) > 0
}

// runArgs finds the preset (the session's own first, then quick, mid, paper) over which
// the fewest flags of run build the session's configuration, and those flags.
func runArgs(r Run) (string, []string, error) {
	key := r.Score.Key
	if key == "" {
		var err error
		if key, err = derived.KeyOf(r.Config); err != nil {
			return "", nil, err
		}
	}
	same := func(b, c runconfig.Config) bool {
		k, err := derived.KeyOf(b)
		return err == nil && k == key && b.EvalEvery == c.EvalEvery && b.ProbeEvery == c.ProbeEvery &&
			b.CheckpointEvery == c.CheckpointEvery && b.GeometryN == c.GeometryN
	}
	presets := runconfig.PresetNames()
	if r.Preset != "" {
		presets = append([]string{r.Preset}, presets...)
	}
	best, bestArgs, firstErr := "", []string(nil), error(nil)
	for _, p := range presets {
		args, err := runconfig.Args(r.Config, p, same)
		if err != nil {
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		if best == "" || len(args) < len(bestArgs) {
			best, bestArgs = p, args
		}
	}
	if best == "" {
		return "", nil, firstErr
	}
	return best, bestArgs, nil
}

// runCommand is the `run` line of a session that is not part of a compare, or a comment
// saying why none can be given.
func runCommand(r Run, preset string, args []string, err error) string {
	if err != nil {
		return fmt.Sprintf("# %s: %v; `windtunnel info --config %s` writes it as a file for run --config", r.Path, err, r.Path)
	}
	c := r.Config
	s := fmt.Sprintf("windtunnel run --headless --preset %s --task %s --model %s --seed %d", preset, c.Task, c.Model, c.Seed)
	for _, a := range args {
		s += " " + a
	}
	return s + " --out " + r.Path
}

// oneToN reports whether seeds are exactly 1..len(seeds).
func oneToN(seeds []uint64) bool {
	s := append([]uint64(nil), seeds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	for i, v := range s {
		if v != uint64(i+1) {
			return false
		}
	}
	return len(s) > 0
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TimescalesCommands are the `timescales` lines that regenerate the results of the authors'
// experiment, each into the file it was read from.
func TimescalesCommands(ts []TimescalesResult) []string {
	var out []string
	for _, t := range ts {
		r := t.Timescales
		out = append(out, fmt.Sprintf("windtunnel timescales --seed-list %s --steps %d --lr %g --value-lr %g --length %d --json > %s",
			strings.ReplaceAll(seedList(r.Seeds), " ", ""), r.Steps, r.LR, r.ValueLR, r.Length, t.Path))
	}
	return out
}
