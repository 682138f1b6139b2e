package reports

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"windtunnel/models/arch"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/runconfig"

	"windtunnel/tunnels"
)

// Commands reconstructs, from each session's configuration, the command lines that
// regenerate every number: one `compare` per folder, preset, task and seed range where the
// sessions are a preset's (with --steps where it differs), `run` with the main sizes
// otherwise; `compare --from` per folder for the architecture table; `probe` per session
// with a snapshot for the geometry.
func Commands(runs []Run) []string {
	type group struct {
		dir, preset, task string
		steps             int
		seeds             []uint64
		models            []string
	}
	var groups []*group
	var out, single []string
	byKey := map[string]*group{}
	seedsOf := map[string][]uint64{} // dir/preset/steps/task/model → seeds
	for _, r := range runs {
		if r.Preset == "" {
			continue
		}
		k := strings.Join([]string{filepath.Dir(r.Path), r.Preset, strconv.Itoa(r.Config.Steps), r.Config.Task, r.Score.Model}, "\x00")
		seedsOf[k] = append(seedsOf[k], r.Config.Seed)
	}
	for _, r := range runs {
		k := strings.Join([]string{filepath.Dir(r.Path), r.Preset, strconv.Itoa(r.Config.Steps), r.Config.Task, r.Score.Model}, "\x00")
		seeds := seedsOf[k]
		if r.Preset == "" || !oneToN(seeds) {
			single = append(single, runCommand(r))
			continue
		}
		gk := strings.Join([]string{filepath.Dir(r.Path), r.Preset, strconv.Itoa(r.Config.Steps), r.Config.Task, strconv.Itoa(len(seeds))}, "\x00")
		g, ok := byKey[gk]
		if !ok {
			g = &group{dir: filepath.Dir(r.Path), preset: r.Preset, task: r.Config.Task, steps: r.Config.Steps, seeds: seeds}
			byKey[gk] = g
			groups = append(groups, g)
		}
		if !contains(g.models, r.Score.Model) {
			g.models = append(g.models, r.Score.Model)
		}
	}
	for _, g := range groups {
		ms := derived.Ordered(g.models, arch.Kinds())
		cmd := fmt.Sprintf("windtunnel compare --preset %s --tasks %s --models %s --seeds %d", g.preset, g.task, strings.Join(ms, ","), len(g.seeds))
		if p, err := runconfig.Preset(g.preset, g.task); err == nil && p.Steps != g.steps {
			cmd += fmt.Sprintf(" --steps %d", g.steps)
		}
		out = append(out, cmd+" --out "+g.dir)
	}
	out = append(out, single...)
	var dirs []string
	for _, r := range runs {
		if d := filepath.Dir(r.Path); !contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
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

// runCommand is the `run` line of a session that is no preset's (or not part of a seed range).
func runCommand(r Run) string {
	c := r.Config
	p := r.Preset
	if p == "" {
		p = runconfig.PresetQuick
	}
	s := fmt.Sprintf("windtunnel run --headless --task %s --model %s --preset %s --seed %d --steps %d", c.Task, c.Model, p, c.Seed, c.Steps)
	if r.Preset == "" {
		t := c.Transformer
		s += fmt.Sprintf(" --layers %d --width %d --batch %d --lr %g --warmup %d --weight-decay %g --clip %g", t.Layers, t.Width, c.Batch, c.LR, c.Warmup, c.WeightDecay, c.Clip)
		if c.Optimizer != "" {
			s += " --optimizer " + c.Optimizer
		}
		if c.Model == arch.KindTransformer {
			s += fmt.Sprintf(" --heads %d --value-lr %g --qk-lr %g", t.Heads, c.ValueLR, c.QKLR)
		}
		return s + " --out " + r.Path + "  # no preset's configuration: sizes from the session, tunnel " + tunnelDesc(c.Tunnel)
	}
	return s + " --out " + r.Path
}

func tunnelDesc(t tunnels.Config) string {
	return fmt.Sprintf("%+v", t)
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
