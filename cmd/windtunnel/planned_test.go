package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"windtunnel/lab/sweep"
	"windtunnel/sessions/runconfig"
	"windtunnel/sessions/sessiontest"
)

// plannedSessions returns the sessions a command line that trains (run or compare, without
// "windtunnel") would write, each with the configuration it would train, without training:
// run's flags as run parses them, and each of compare's points as compare plans it and its
// engine starts it (sweep.RunArgs with compare's workers and --blas).
func plannedSessions(t *testing.T, args ...string) map[string]runconfig.Config {
	t.Helper()
	out := map[string]runconfig.Config{}
	switch args[0] {
	case "run":
		cfg, err := parseRun(t, args[1:]...)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		path := ""
		for i := 1; i+1 < len(args); i++ {
			if args[i] == "--out" {
				path = args[i+1]
			}
		}
		if path == "" {
			t.Fatalf("%q: no --out", args)
		}
		out[path] = cfg
	case "compare":
		cmd := newCompareCmd(io.Discard, io.Discard)
		fs := cmd.Flags()
		if err := fs.Parse(args[1:]); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		tasks, _ := fs.GetString("tasks")
		models, _ := fs.GetString("models")
		preset, _ := fs.GetString("preset")
		seeds, _ := fs.GetInt("seeds")
		steps, _ := fs.GetInt("steps")
		outDir, _ := fs.GetString("out")
		blas, _ := fs.GetString("blas")
		plan, err := sweep.ComparePlan(tasks, models, preset, steps, seeds)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		for _, p := range plan.Points {
			session := filepath.Join(outDir, p.Session())
			ra := sweep.RunArgs(session, p, runtime.NumCPU(), blas, false)
			cfg, err := parseRun(t, ra[1:]...)
			if err != nil {
				t.Fatalf("%s: %q: %v", p.Name, ra, err)
			}
			out[session] = cfg
		}
	default:
		t.Fatalf("%q: not a command that trains", args)
	}
	return out
}

// writePlanned writes, for each session a command line would train (plannedSessions), the
// session of its configuration run to the end (sessiontest.WriteFinished), and returns them.
func writePlanned(t *testing.T, args ...string) map[string]runconfig.Config {
	t.Helper()
	planned := plannedSessions(t, args...)
	for path, cfg := range planned {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := sessiontest.WriteFinished(path, cfg); err != nil {
			t.Fatal(err)
		}
	}
	return planned
}
