//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"

	"windtunnel/sessions"
)

// TestLogModes: the dashboard's log beside a session and a viewer's log in the cache
// directory (and its directories) are their owner's only: they name the session and its
// host, and the viewer log who attached.
func TestLogModes(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	session := filepath.Join(dir, "s.wtlab")
	_, closeLog, err := openLog(session)
	if err != nil {
		t.Fatal(err)
	}
	closeLog()
	_, closeViewer, err := openViewerLog(session)
	if err != nil {
		t.Fatal(err)
	}
	closeViewer()
	logs := filepath.Join(dir, "cache", "windtunnel", "logs")
	for p, want := range map[string]os.FileMode{session + ".log": sessions.FileMode, filepath.Join(logs, "s.wtlab.log"): sessions.FileMode,
		logs: sessions.DirMode} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
		} else if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
}
