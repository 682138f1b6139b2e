package sessions

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The files a session keeps beside it, each named here once. While a Writer is open:
// SQLite's write-ahead log and its index (walPath, shmPath) and the writer's lock (lockPath);
// a run's log (LogPath: a detached or dashboard run's output); a session a sweep could not
// read, set aside (SetAsidePath). A dashboard that only reads a session logs elsewhere,
// under ViewerLogName; the control socket of a live run is named by sessions/relay.

// LogPath is the log of the run writing session: <session>.log beside it, where a detached
// run's output and a dashboard run's log go.
func LogPath(session string) string { return session + ".log" }

// ViewerLogName is the file name of the log of a viewer (replay, attach) of session, in
// the user's cache directory: <session base>.log.
func ViewerLogName(session string) string { return filepath.Base(session) + ".log" }

// OpenViewerLog opens the log of a viewer (replay, attach) of session for appending (OpenLog):
// os.UserCacheDir()/windtunnel/logs/<session base>.log, the folders made as needed. A
// viewer writes nothing beside a session it reads.
func OpenViewerLog(session string) (*os.File, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	dir = filepath.Join(dir, "windtunnel", "logs")
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	return OpenLog(filepath.Join(dir, ViewerLogName(session)))
}

// SetAsidePath is where a session that cannot be read is moved so that its run starts
// again: <session>.unreadable-<time>.
func SetAsidePath(session string, now time.Time) string {
	return session + ".unreadable-" + now.Format("20060102-150405")
}

// walPath and shmPath are SQLite's write-ahead log of a session and its index.
func walPath(path string) string { return path + "-wal" }
func shmPath(path string) string { return path + "-shm" }

// lockPath is the sidecar a Writer holds an advisory lock on for its lifetime: the session
// path with ".lock" added. It holds the writer's pid and host name (holder.go: believed
// only while the lock is held, LockHolder). Readers never take it, so they are never
// blocked; Close removes it, so a closed session is one file again. A lock file left by a
// killed writer holds no lock (the kernel drops it with the process) and is reused.
func lockPath(path string) string { return path + ".lock" }
