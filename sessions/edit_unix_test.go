//go:build unix

package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestEditSessionElsewhere: both edits of a session after its run (Relabel,
// AddUserMetrics) go through editSession: a finished session is edited, one whose lock is
// held by a writer of another host is refused, each naming its own advice, and nothing is
// written to it.
func TestEditSessionElsewhere(t *testing.T) {
	edits := []struct {
		name, advice string
		edit         func(path string) error
	}{
		{"relabel", "relabel it there", func(p string) error { _, err := Relabel(p, Edit{Name: "x", SetName: true}); return err }},
		{"metrics", "add them there", func(p string) error { return AddUserMetrics(p, []UserMetric{{Name: "probe", Step: 1, Value: 0.5}}) }},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.wtlab")
			w, err := Create(path, testMeta(), WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := e.edit(path); err != nil {
				t.Fatalf("a finished session: %v", err)
			}
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+".lock", []byte(lockText(os.Getpid(), hostName()+"-elsewhere")), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path + ".lock")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
				t.Fatal(err)
			}
			err = e.edit(path)
			if err == nil || !strings.Contains(err.Error(), "not a process of this host") || !strings.Contains(err.Error(), e.advice) {
				t.Errorf("another host's writer: %v, want refused with %q", err, e.advice)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(before) {
				t.Error("the refused edit changed the session")
			}
		})
	}
}
