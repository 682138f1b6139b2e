package tui

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the unit of /proc's CPU times (USER_HZ, 100 on every Linux the kernel's
// ABI promises it to user space).
const clockTicks = 100

// readProc reads process pid's CPU time, resident memory and threads from /proc.
func readProc(pid int) (procSample, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procSample{}, fmt.Errorf("process %d: %w", pid, err)
	}
	// The command name, in parentheses, may hold spaces: the fields follow its last ")".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procSample{}, fmt.Errorf("process %d: unreadable /proc stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 22 {
		return procSample{}, fmt.Errorf("process %d: short /proc stat", pid)
	}
	num := func(k int) int64 { v, _ := strconv.ParseInt(f[k], 10, 64); return v }
	// f[0] is field 3 (state): utime 14, stime 15, num_threads 20, rss 24 (pages).
	cpu := time.Duration(num(11)+num(12)) * time.Second / clockTicks
	return procSample{pid: pid, at: time.Now(), cpu: cpu, rss: num(21) * int64(os.Getpagesize()), threads: int(num(17)), ok: true}, nil
}
