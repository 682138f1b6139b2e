package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"

	"windtunnel/backends/libc"
	"windtunnel/lab"
)

func main() {
	limitAddressSpace(os.Stderr)
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

// limitAddressSpace fits the process to an address-space limit (ulimit -v), when there is
// one: threads share glibc's malloc arenas instead of reserving 64 MiB each (a C library
// that is not glibc is left as it is), and a limit below lab.MinAddressSpace is named in one
// line on stderr.
func limitAddressSpace(stderr io.Writer) {
	lim, ok := lab.AddressSpaceLimit()
	if !ok {
		return
	}
	libc.CapArenas(1)
	if lim < lab.MinAddressSpace {
		fmt.Fprintln(stderr, lab.AddressSpaceWarning(lim))
	}
}
