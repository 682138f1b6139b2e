package sessions

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Holder is who holds a session's lock (LockHolder): what its lock file says, believed only
// while the lock is held.
type Holder struct {
	// Held: a process holds the lock now, on this host or on another sharing the folder.
	Held bool
	// Pid and Host are what a held lock's file names (0 and "" when it names none, or when
	// the lock is not held: a killed writer's file names a pid that may be anyone's since).
	Pid  int
	Host string
	// Local: the lock is held by the process Pid of this host — the writer, which may be
	// signalled. Never set for a lock nobody holds, nor for one naming another host.
	Local bool
}

// Elsewhere says where a held lock's writer runs when it is not this process's host to
// signal ("pid 123 on host node7", "an unknown process"), for messages.
func (h Holder) Elsewhere() string {
	switch {
	case h.Pid > 0 && h.Host != "":
		return fmt.Sprintf("pid %d on host %s", h.Pid, SafeText(h.Host))
	case h.Pid > 0:
		return fmt.Sprintf("pid %d (host unknown)", h.Pid)
	}
	return "an unknown process"
}

// WriterPid is the pid of the process on this host that writes the session at path (it
// holds the session's lock: LockHolder's Local), or 0 when none does. It never takes the
// lock. A lock file left by a killed writer names a pid that may be anyone's since, and one
// naming another host (a Slurm node writing into a shared folder) a process that is not
// this host's: neither is ever returned, so a caller may signal what it returns.
func WriterPid(path string) int {
	if h := LockHolder(path); h.Local {
		return h.Pid
	}
	return 0
}

// maxLockText bounds what is read of a lock file (anyone who can write the folder can
// write it).
const maxLockText = 512

// lockText is what a lock file holds: the holder's pid and host name, a line each.
func lockText(pid int, host string) string {
	return strconv.Itoa(pid) + "\n" + host + "\n"
}

// parseLockText reads lockText (pid 0 when the first line is not one; host "" when
// missing, as in the lock files of older versions, which hold the pid alone).
func parseLockText(b []byte) (pid int, host string) {
	lines := strings.SplitN(string(b), "\n", 3)
	if n, err := strconv.Atoi(strings.TrimSpace(lines[0])); err == nil && n > 0 {
		pid = n
	}
	if len(lines) > 1 {
		host = strings.TrimSpace(lines[1])
	}
	return pid, host
}

// hostName is this machine's host name ("" when it cannot be read: then no lock is
// believed to be this host's).
func hostName() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}
