package main

import (
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"

	"windtunnel/lab"
)

func main() {
	if os.Getenv("GOGC") == "" { // a GOGC the user sets wins
		debug.SetGCPercent(lab.GCPercent)
	}
	// For measuring the tool itself: WINDTUNNEL_CPUPROFILE and WINDTUNNEL_TRACE name files
	// for a CPU profile and an execution trace of the whole command.
	var stops []func()
	for _, p := range []struct {
		env   string
		start func(io.Writer) error
		stop  func()
	}{
		{"WINDTUNNEL_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile},
		{"WINDTUNNEL_TRACE", trace.Start, trace.Stop},
	} {
		if path := os.Getenv(p.env); path != "" {
			if f, err := os.Create(path); err == nil && p.start(f) == nil {
				stops = append(stops, func() { p.stop(); f.Close() })
			}
		}
	}
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	for _, stop := range stops {
		stop()
	}
	os.Exit(code)
}
