package lab

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A run's memory is bounded by more than the machine's free memory: a container's cgroup
// (v2 memory.max, v1 memory.limit_in_bytes, on the run's cgroup or any above it) and the
// process's address-space limit (RLIMIT_AS, ulimit -v) refuse allocations, or kill the
// process, well before MemAvailable runs out. AvailableMemory is the least room left under
// any of them.

// MinAddressSpace is the least address-space limit (ulimit -v) under which windtunnel is
// known to start and train: the Go runtime reserves about 1.2 GiB of address space at start
// (its page allocator's index and heap arena hints, never touched: a Go "hello world" needs
// as much), the C threads purego starts add a stack each and, before main can cap them
// (libc.CapArenas), a 64 MiB malloc arena each. Measured on linux/amd64 with Go 1.26 (docs/reference.md,
// Session files): below it, the runtime may die before main with "out of memory" or "pthread_create
// failed", whatever the command.
const MinAddressSpace = 2 << 30

// AddressSpaceLimit is the process's soft address-space limit (RLIMIT_AS, ulimit -v); false
// when there is none.
func AddressSpaceLimit() (uint64, bool) {
	lim, ok := rlimitAS()
	return lim, ok && lim < 1<<62
}

// AddressSpaceWarning is the one line windtunnel prints at start under an address-space
// limit below MinAddressSpace.
func AddressSpaceWarning(lim uint64) string {
	return fmt.Sprintf("windtunnel: ulimit -v is %d MiB; windtunnel needs at least %d MiB of address space (the Go runtime reserves about 1.2 GiB at start, untouched) and may stop with \"out of memory\": raise it, or cap memory with a cgroup (systemd-run --user --scope -p MemoryMax=4G windtunnel …)",
		lim>>20, uint64(MinAddressSpace)>>20)
}

// memSources is where the limits are read: root is the file system root ("/"; tests lay a
// folder out like it), rlimitAS the soft RLIMIT_AS (false when unlimited or unknown).
type memSources struct {
	root     string
	rlimitAS func() (uint64, bool)
}

// unlimitedV1 is the smallest cgroup v1 limit read as "no limit" (the kernel writes
// 9223372036854771712, a page-rounded 2⁶³−1).
const unlimitedV1 = 1 << 60

// available returns the least room left under each limit that can be read and which limit
// that is ("MemAvailable", "cgroup memory.max", "cgroup memory.limit_in_bytes",
// "RLIMIT_AS"), at least 1 byte; 0 and "" when none can be read.
func (s memSources) available() (int64, string) {
	var best int64
	var source string
	take := func(room int64, src string) {
		room = max(room, 1) // a limit with no room left is not "unknown" (0)
		if source == "" || room < best {
			best, source = room, src
		}
	}
	if f, err := os.Open(s.path("proc/meminfo")); err == nil {
		if n := memAvailable(f); n > 0 {
			take(n, "MemAvailable")
		}
		f.Close()
	}
	for _, c := range s.cgroups() {
		take(c.room, c.source)
	}
	if s.rlimitAS != nil {
		if lim, ok := s.rlimitAS(); ok && lim < 1<<62 {
			take(int64(lim)-s.vmSize(), "RLIMIT_AS (ulimit -v)")
		}
	}
	return best, source
}

func (s memSources) path(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }

// cgroupRoom is the room left under one cgroup's memory limit.
type cgroupRoom struct {
	room   int64
	source string
}

// cgroups reads /proc/self/cgroup and returns the room under every memory limit of this
// process's cgroups (v2 and v1) and their ancestors.
func (s memSources) cgroups() []cgroupRoom {
	f, err := os.Open(s.path("proc/self/cgroup"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []cgroupRoom
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			out = append(out, s.walk(s.path("sys/fs/cgroup"), parts[2], "memory.max", "memory.current", "cgroup memory.max")...)
		case hasController(parts[1], "memory"):
			out = append(out, s.walk(s.path("sys/fs/cgroup/memory"), parts[2], "memory.limit_in_bytes", "memory.usage_in_bytes", "cgroup memory.limit_in_bytes")...)
		}
	}
	return out
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// walk reads limitFile and usageFile in the cgroup at base+path and every ancestor up to
// base (base alone when the path is not there: a container sees its own cgroup at the
// mount's root).
func (s memSources) walk(base, cgPath, limitFile, usageFile, source string) []cgroupRoom {
	dir := filepath.Join(base, filepath.FromSlash(cgPath))
	if rel, err := filepath.Rel(base, dir); err != nil || strings.HasPrefix(rel, "..") {
		return nil
	}
	if _, err := os.Stat(dir); err != nil {
		dir = base
	}
	var out []cgroupRoom
	for {
		if lim, ok := readInt(filepath.Join(dir, limitFile)); ok && lim > 0 && lim < unlimitedV1 {
			used, _ := readInt(filepath.Join(dir, usageFile))
			// The page cache the kernel can drop counts as used; take its inactive part
			// off, as container runtimes do for the working set.
			used -= min(inactiveFile(filepath.Join(dir, "memory.stat")), used)
			out = append(out, cgroupRoom{room: lim - used, source: source})
		}
		if dir == base || len(dir) <= len(base) {
			return out
		}
		dir = filepath.Dir(dir)
	}
}

// inactiveFile is the inactive page cache of a cgroup's memory.stat (v2 inactive_file, v1
// total_inactive_file), 0 when unknown.
func inactiveFile(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && (k == "inactive_file" || k == "total_inactive_file") {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// readInt reads a file holding one integer ("max" and anything else: false).
func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 64 {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// vmSize is the process's address space in use (VmSize of /proc/self/status), 0 unknown.
func (s memSources) vmSize() int64 {
	f, err := os.Open(s.path("proc/self/status"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 2 && fs[0] == "VmSize:" {
			kb, err := strconv.ParseInt(fs[1], 10, 64)
			if err == nil && kb > 0 {
				return kb << 10
			}
		}
	}
	return 0
}
