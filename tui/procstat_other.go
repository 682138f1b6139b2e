//go:build !linux

package tui

import (
	"fmt"
	"runtime"
)

// readProc is not available off Linux: the System pane says so.
func readProc(pid int) (procSample, error) {
	return procSample{}, fmt.Errorf("process %d: no /proc on %s", pid, runtime.GOOS)
}
