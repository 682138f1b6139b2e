//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedLinksRefused plants, as another user of a shared directory could, a link to a
// file of ours at a run's lock path, at a detached run's log path and where SQLite keeps a
// new session's log and index (-wal, -shm). run --out and
// run --detach must refuse with a message naming the link, leave the target as it was and
// the link in place, and start nothing.
func TestPlantedLinksRefused(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	const victimText = "precious\n"
	for _, c := range []struct {
		name   string
		suffix string // the planted link is session+suffix
		args   []string
	}{
		{"run --out, lock", ".lock", append([]string{"run", "--headless", "--steps", "20"}, tinyRun...)},
		{"run --detach, log", ".log", append(append([]string{}, detachRun...), "--steps", "20")},
		// SQLite's index and log beside a new session (issue 44, item 9: once "unable to
		// open database file (14)", naming nothing, and an empty -wal left behind).
		{"run --out, shm", "-shm", append([]string{"run", "--headless", "--steps", "20"}, tinyRun...)},
		{"run --out, wal", "-wal", append([]string{"run", "--headless", "--steps", "20"}, tinyRun...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "run.wtlab")
			victim := filepath.Join(t.TempDir(), "victim")
			if err := os.WriteFile(victim, []byte(victimText), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, path+c.suffix); err != nil {
				t.Fatal(err)
			}
			code, _, errs := runCLI(append(c.args, "--out", path)...)
			if code != 1 || !strings.Contains(errs, path+c.suffix) || !strings.Contains(errs, "symbolic link") {
				t.Errorf("exit %d, %q; want 1 and a message that %s is a symbolic link", code, errs, path+c.suffix)
			}
			if b, err := os.ReadFile(victim); err != nil || string(b) != victimText {
				t.Errorf("the link's target now holds %q (%v), want it untouched", b, err)
			}
			if st, err := os.Lstat(path + c.suffix); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the planted link was removed or replaced: %v", err)
			}
			for _, f := range []string{path, path + "-wal", path + "-shm"} {
				if _, err := os.Lstat(f); err == nil && f != path+c.suffix {
					t.Errorf("%s was created", f)
				}
			}
		})
	}
}
