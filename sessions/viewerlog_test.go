//go:build unix

package sessions

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLogModes: the dashboard's log beside a session and a viewer's log in the cache
// directory (and its directories) are their owner's only: they name the session and its
// host, and the viewer log who attached.
func TestLogFileModes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	session := filepath.Join(dir, "s.wtlab")
	for _, open := range []func(string) (*os.File, error){func(s string) (*os.File, error) { return OpenLog(LogPath(s)) }, OpenViewerLog} {
		f, err := open(session)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	logs := filepath.Join(dir, "cache", "windtunnel", "logs")
	for p, want := range map[string]os.FileMode{session + ".log": FileMode, filepath.Join(logs, "s.wtlab.log"): FileMode,
		logs: DirMode} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
		} else if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
}
