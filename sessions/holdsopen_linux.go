package sessions

import (
	"os"
	"strconv"
)

// maxFds bounds the descriptors of a process holdsOpen looks through.
const maxFds = 1 << 16

// holdsOpen reports whether process pid has f's file open (/proc/<pid>/fd): the pid a held
// lock file names is its holder only if so. The window between a writer taking the lock
// of a killed writer's file and writing its own pid there is closed by this check.
func holdsOpen(pid int, f *os.File) bool {
	want, err := f.Stat()
	if err != nil {
		return false
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer d.Close()
	for seen := 0; seen < maxFds; {
		names, err := d.Readdirnames(1024)
		for _, n := range names {
			if st, err := os.Stat(dir + "/" + n); err == nil && os.SameFile(st, want) {
				return true
			}
		}
		if err != nil || len(names) == 0 {
			return false
		}
		seen += len(names)
	}
	return false
}
