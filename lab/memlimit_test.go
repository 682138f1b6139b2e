package lab

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAvailableMemoryLimits: the memory available is the least room under MemAvailable,
// the cgroup limits (v2 and v1, the process's cgroup and those above it, less what they
// use but their inactive page cache) and RLIMIT_AS (less the address space in use), named.
func TestAvailableMemoryLimits(t *testing.T) {
	const gib = 1 << 30
	meminfo := map[string]string{"proc/meminfo": "MemTotal: 33554432 kB\nMemAvailable: 16777216 kB\n"} // 16 GiB
	with := func(files ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, f := range files {
			for k, v := range f {
				out[k] = v
			}
		}
		return out
	}
	v2 := func(path string) map[string]string { return map[string]string{"proc/self/cgroup": "0::" + path + "\n"} }
	v1 := func(path string) map[string]string {
		return map[string]string{"proc/self/cgroup": "5:devices:/\n4:memory:" + path + "\n0::/\n"}
	}
	for _, c := range []struct {
		name   string
		files  map[string]string
		as     uint64 // soft RLIMIT_AS, 0 unlimited
		want   int64
		source string
	}{
		{"nothing readable", nil, 0, 0, ""},
		{"MemAvailable", meminfo, 0, 16 * gib, "MemAvailable"},
		{"cgroup v2 memory.max", with(meminfo, v2("/job"), map[string]string{
			"sys/fs/cgroup/job/memory.max": "2147483648\n", "sys/fs/cgroup/job/memory.current": "536870912\n"}),
			0, 3 * gib / 2, "cgroup memory.max"},
		{"cgroup v2 inactive cache not counted", with(meminfo, v2("/job"), map[string]string{
			"sys/fs/cgroup/job/memory.max": "2147483648\n", "sys/fs/cgroup/job/memory.current": "1073741824\n",
			"sys/fs/cgroup/job/memory.stat": "anon 536870912\ninactive_file 536870912\n"}),
			0, 3 * gib / 2, "cgroup memory.max"},
		{"cgroup v2 parent tighter", with(meminfo, v2("/a/b"), map[string]string{
			"sys/fs/cgroup/a/b/memory.max": "max\n", "sys/fs/cgroup/a/memory.max": "1073741824\n",
			"sys/fs/cgroup/a/memory.current": "0\n"}),
			0, gib, "cgroup memory.max"},
		{"cgroup v2 no limit", with(meminfo, v2("/a"), map[string]string{"sys/fs/cgroup/a/memory.max": "max\n"}),
			0, 16 * gib, "MemAvailable"},
		{"cgroup v2 in a container (path not mounted)", with(meminfo, v2("/host/side"), map[string]string{
			"sys/fs/cgroup/memory.max": "4294967296\n", "sys/fs/cgroup/memory.current": "0\n"}),
			0, 4 * gib, "cgroup memory.max"},
		{"cgroup v1 limit", with(meminfo, v1("/job"), map[string]string{
			"sys/fs/cgroup/memory/job/memory.limit_in_bytes": "1073741824\n", "sys/fs/cgroup/memory/job/memory.usage_in_bytes": "268435456\n"}),
			0, 3 * gib / 4, "cgroup memory.limit_in_bytes"},
		{"cgroup v1 unlimited", with(meminfo, v1("/job"), map[string]string{
			"sys/fs/cgroup/memory/job/memory.limit_in_bytes": "9223372036854771712\n", "sys/fs/cgroup/memory/job/memory.usage_in_bytes": "1\n"}),
			0, 16 * gib, "MemAvailable"},
		{"RLIMIT_AS", with(meminfo, map[string]string{"proc/self/status": "Name: x\nVmSize:  1048576 kB\n"}),
			3 * gib, 2 * gib, "RLIMIT_AS (ulimit -v)"},
		{"RLIMIT_AS used up", with(meminfo, map[string]string{"proc/self/status": "VmSize:  4194304 kB\n"}),
			3 * gib, 1, "RLIMIT_AS (ulimit -v)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, body := range c.files {
				p := filepath.Join(root, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			as := func() (uint64, bool) { return c.as, c.as > 0 }
			got, src := memSources{root: root, rlimitAS: as}.available()
			if got != c.want || src != c.source {
				t.Errorf("available %d (%s), want %d (%s)", got, src, c.want, c.source)
			}
		})
	}
}
