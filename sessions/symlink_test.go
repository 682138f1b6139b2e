//go:build unix

package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockFileNotFollowed plants what another user of a shared directory could at a
// session's lock path: a link to a file of the writer's user, a dangling link, a FIFO. The
// writer must refuse each, leave the planted thing and its target as they were, and name
// the lock path.
func TestLockFileNotFollowed(t *testing.T) {
	const victimText = "precious\n"
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, lock, victim string)
		want  error
	}{
		{"link to a file", func(t *testing.T, lock, victim string) { must(t, os.Symlink(victim, lock)) }, ErrSymlink},
		{"dangling link", func(t *testing.T, lock, victim string) {
			must(t, os.Remove(victim))
			must(t, os.Symlink(victim, lock))
		}, ErrSymlink},
		{"fifo", func(t *testing.T, lock, victim string) { must(t, syscall.Mkfifo(lock, 0o600)) }, ErrNotRegular},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "run.wtlab")
			victim := filepath.Join(t.TempDir(), "victim")
			must(t, os.WriteFile(victim, []byte(victimText), 0o600))
			c.plant(t, path+".lock", victim)
			before, err := os.Lstat(path + ".lock")
			must(t, err)

			done := make(chan error, 1)
			go func() {
				w, err := Create(path, testMeta(), WriterOptions{})
				if err == nil {
					w.Close()
				}
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Create blocked on the planted lock path for 5 s")
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Create: %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), path+".lock") {
				t.Errorf("error %q does not name the lock file", err)
			}
			if b, err := os.ReadFile(victim); c.name != "dangling link" && (err != nil || string(b) != victimText) {
				t.Errorf("the link's target now holds %q (%v), want it untouched", b, err)
			}
			if _, err := os.Stat(victim); c.name == "dangling link" && err == nil {
				t.Errorf("the dangling link's target was created")
			}
			after, err := os.Lstat(path + ".lock")
			if err != nil || after.Mode() != before.Mode() {
				t.Errorf("the planted lock path was changed or removed: %v", err)
			}
			if _, err := os.Lstat(path); err == nil {
				t.Errorf("the session was created despite the refused lock")
			}
		})
	}
}

// TestOpenLogNotFollowed checks that a log beside a session is created owner-only and
// appended to, and that a link or FIFO at its path is refused at once, untouched.
func TestOpenLogNotFollowed(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	must(t, os.WriteFile(victim, []byte("precious\n"), 0o600))
	link := filepath.Join(dir, "link.log")
	must(t, os.Symlink(victim, link))
	fifo := filepath.Join(dir, "fifo.log")
	must(t, syscall.Mkfifo(fifo, 0o600))
	plain := filepath.Join(dir, "plain.log")

	for _, c := range []struct {
		path string
		want error
	}{{link, ErrSymlink}, {fifo, ErrNotRegular}, {plain, nil}, {plain, nil}} {
		done := make(chan error, 1)
		go func() {
			f, err := OpenLog(c.path)
			if err == nil {
				_, err = f.WriteString("line\n")
				f.Close()
			}
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("OpenLog(%s) blocked for 5 s", c.path)
		}
		if !errors.Is(err, c.want) || (c.want != nil && !strings.Contains(err.Error(), c.path)) {
			t.Errorf("OpenLog(%s): %v, want %v naming the path", c.path, err, c.want)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target now holds %q", b)
	}
	st, err := os.Stat(plain)
	must(t, err)
	if st.Mode().Perm() != FileMode || st.Size() != int64(len("line\nline\n")) {
		t.Errorf("log: mode %v size %d, want %v and two appended lines", st.Mode().Perm(), st.Size(), FileMode)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
