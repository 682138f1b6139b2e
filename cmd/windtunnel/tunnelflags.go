package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"windtunnel/tunnels"
)

// tunnelFlags are the task-size flags shared by sample and run.
type tunnelFlags struct {
	task string
	cfg  tunnels.Config
}

func (f *tunnelFlags) register(fs *pflag.FlagSet, defTask string) {
	fs.StringVar(&f.task, "task", defTask, "task: "+strings.Join(tunnels.Names(), ", "))
	fs.IntVar(&f.cfg.V, "v", 0, "bijection: number of symbols V (3..64, default 20)")
	fs.IntVar(&f.cfg.States, "states", 0, "hmm: hidden states S (2..20, default 5)")
	fs.IntVar(&f.cfg.Symbols, "symbols", 0, "hmm: observation symbols O (2..20, default 5)")
	fs.IntVar(&f.cfg.K, "k", 0, "hmm: observations per sequence K (1..512, default 20)")
	fs.IntVar(&f.cfg.Pairs, "pairs", 0, "recall: stored pairs N (default 64)")
	fs.IntVar(&f.cfg.Keys, "keys", 0, "recall: key vocabulary Kv (default 256)")
	fs.IntVar(&f.cfg.Values, "values", 0, "recall: value vocabulary Vv (default 256)")
	fs.IntVar(&f.cfg.Fillers, "fillers", 0, "recall: filler tokens F (default 32)")
	fs.IntVar(&f.cfg.Queries, "queries", 0, "recall: queries M (default 3)")
	fs.StringVar(&f.cfg.Layout, "layout", "", "recall: pair layout, store (STORE k SEP v, the authors') or kv (k v, as multi-query associative recall) (default: the preset's)")
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
	t, err := tunnels.New(f.task, f.cfg)
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
