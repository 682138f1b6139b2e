package main

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"windtunnel/sessions/runconfig"
	"windtunnel/tunnels"
)

// tunnelFlags are the task-size flags shared by sample, score and run.
type tunnelFlags struct {
	task string
	cfg  tunnels.Config
	// preset (sample and score) names the preset whose task sizes the size flags given
	// change, so that they draw the sequences run trains on; run merges its own, and ""
	// builds cfg as given (the tunnels' defaults for its zeros).
	preset string
	fs     *pflag.FlagSet
}

func (f *tunnelFlags) register(fs *pflag.FlagSet, defTask string) {
	f.fs = fs
	fs.StringVar(&f.task, "task", defTask, "task: "+strings.Join(tunnels.Names(), ", "))
	def := runconfig.PresetValues
	itoa := func(get func(tunnels.Config) int) func(tunnels.Config) string {
		return func(c tunnels.Config) string { return strconv.Itoa(get(c)) }
	}
	fs.IntVar(&f.cfg.V, "v", 0, "bijection: number of symbols V (3..64, "+def("bijection", itoa(func(c tunnels.Config) int { return c.V }))+")")
	fs.IntVar(&f.cfg.States, "states", 0, "hmm: hidden states S (2..20, "+def("hmm", itoa(func(c tunnels.Config) int { return c.States }))+")")
	fs.IntVar(&f.cfg.Symbols, "symbols", 0, "hmm: observation symbols O (2..20, "+def("hmm", itoa(func(c tunnels.Config) int { return c.Symbols }))+")")
	fs.IntVar(&f.cfg.K, "k", 0, "hmm: observations per sequence K (1..512, "+def("hmm", itoa(func(c tunnels.Config) int { return c.K }))+")")
	fs.IntVar(&f.cfg.Pairs, "pairs", 0, "recall: stored pairs N ("+def("recall", itoa(func(c tunnels.Config) int { return c.Pairs }))+")")
	fs.IntVar(&f.cfg.Keys, "keys", 0, "recall: key vocabulary Kv ("+def("recall", itoa(func(c tunnels.Config) int { return c.Keys }))+")")
	fs.IntVar(&f.cfg.Values, "values", 0, "recall: value vocabulary Vv ("+def("recall", itoa(func(c tunnels.Config) int { return c.Values }))+")")
	fs.IntVar(&f.cfg.Fillers, "fillers", 0, "recall: filler tokens F ("+def("recall", itoa(func(c tunnels.Config) int { return c.Fillers }))+")")
	fs.IntVar(&f.cfg.Queries, "queries", 0, "recall: queries M ("+def("recall", itoa(func(c tunnels.Config) int { return c.Queries }))+")")
	fs.StringVar(&f.cfg.Layout, "layout", "", "recall: pair layout, store (STORE k SEP v, the authors') or kv (k v, as multi-query associative recall) ("+
		def("recall", func(c tunnels.Config) string { return cmp.Or(c.Layout, tunnels.RecallLayoutStore) })+")")
}

// registerPreset adds --preset (sample, score): the task sizes start from the preset's.
func (f *tunnelFlags) registerPreset(fs *pflag.FlagSet) {
	fs.StringVar(&f.preset, "preset", runconfig.PresetQuick, "the preset whose task sizes the size flags change, as run --preset: "+strings.Join(runconfig.PresetNames(), ", "))
}

// checkExplicit rejects explicitly given non-positive sizes (0 would silently mean "default").
func (f *tunnelFlags) checkExplicit(fs *pflag.FlagSet) error {
	for name, v := range map[string]int{"v": f.cfg.V, "states": f.cfg.States, "symbols": f.cfg.Symbols, "k": f.cfg.K,
		"pairs": f.cfg.Pairs, "keys": f.cfg.Keys, "values": f.cfg.Values, "fillers": f.cfg.Fillers, "queries": f.cfg.Queries} {
		if fs.Changed(name) && v <= 0 {
			return usagef("--%s %d: must be positive", name, v)
		}
	}
	return nil
}

// build makes the tunnel, turning size errors into usage errors that name the flag.
func (f *tunnelFlags) build() (tunnels.Tunnel, error) {
	if !validTask(f.task) {
		return nil, usagef("--task %q: want one of %s", f.task, strings.Join(tunnels.Names(), ", "))
	}
	cfg := f.cfg
	if f.preset != "" {
		p, err := runconfig.Preset(f.preset, f.task)
		if err != nil {
			return nil, usagef("--preset %q: want %s", f.preset, strings.Join(runconfig.PresetNames(), ", "))
		}
		cfg = runconfig.MergeTunnel(p.Tunnel, f.cfg, f.fs.Changed)
	}
	t, err := tunnels.New(f.task, cfg)
	if err != nil {
		var pe *tunnels.ParamError
		if errors.As(err, &pe) {
			return nil, usageError{fmt.Errorf("--%s %d: %s %s must be in %d..%d", pe.Param, pe.Value, pe.Task, pe.Param, pe.Min, pe.Max)}
		}
		return nil, usageError{err}
	}
	return t, nil
}

func validTask(s string) bool {
	for _, n := range tunnels.Names() {
		if n == s {
			return true
		}
	}
	return false
}
