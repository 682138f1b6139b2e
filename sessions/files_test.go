package sessions

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// dirFiles lists the names in dir.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// closedSession records n synthetic records into a new session at path and closes it.
func closedSession(t *testing.T, path string, n int) {
	t.Helper()
	w, err := Create(path, testMeta(), WriterOptions{Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range synth(n) {
		w.Record(r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// walWithoutLog leaves a closed session in WAL mode without its log, as a Writer that
// closed while a reader of an older build had the file open leaves it.
func walWithoutLog(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode=WAL`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode=WAL: %q, %v", mode, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if wal, err := walMode(path); err != nil || !wal {
		t.Fatalf("header not in WAL mode: %v %v", wal, err)
	}
}

// mustSpan fails unless the reader's records run from 1 to last.
func mustSpan(t *testing.T, r *Reader, last int) {
	t.Helper()
	if first, l, ok := r.Span(); !ok || first != 1 || l != last {
		t.Fatalf("span %d..%d (%v), want 1..%d", first, l, ok, last)
	}
}

// TestClosedSessionIsOneFile checks that once the writer and every reader have closed, the
// session is one file: no -wal or -shm beside it, whoever closed last, and that a reader of
// a closed session creates nothing beside it even while open.
func TestClosedSessionIsOneFile(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, path string)
		wal  bool // the file stays in WAL mode: a reader of a closed session changes nothing
	}{
		{"writer then reader", func(t *testing.T, path string) {
			closedSession(t, path, 30)
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			mustSpan(t, r, 30)
			if got := dirFiles(t, filepath.Dir(path)); len(got) != 1 {
				t.Errorf("while reading a closed session: %v", got)
			}
			r.Close()
		}, false},
		{"reader open while writing, closed after the writer", func(t *testing.T, path string) {
			w, err := Create(path, testMeta(), WriterOptions{Interval: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range synth(20) {
				w.Record(rec)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			r.Follow(5 * time.Millisecond)
			mustSpan(t, r, 20)
			for _, rec := range synth(40)[20:] {
				w.Record(rec)
			}
			t0 := time.Now()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(t0); d > 2*time.Second {
				t.Errorf("the writer took %s to close with a reader attached", d)
			}
			mustSpan(t, r, 40)
			time.Sleep(20 * time.Millisecond) // a Follow poll after the writer left
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"two readers", func(t *testing.T, path string) {
			w, err := Create(path, testMeta(), WriterOptions{Interval: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			w.Record(Record{Step: 1, State: Training})
			w.Flush()
			a, errA := Open(path)
			b, errB := Open(path)
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			w.Close()
			a.Close()
			if got := dirFiles(t, filepath.Dir(path)); len(got) == 1 {
				t.Errorf("tidied while a reader was still open: %v", got)
			}
			mustSpan(t, b, 1)
			b.Close()
		}, false},
		{"WAL mode without a log", func(t *testing.T, path string) {
			closedSession(t, path, 10)
			walWithoutLog(t, path)
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			mustSpan(t, r, 10)
			if got := dirFiles(t, filepath.Dir(path)); len(got) != 1 {
				t.Errorf("while reading: %v", got)
			}
			r.Close()
		}, true},
		{"log left by a killed writer", func(t *testing.T, path string) {
			// A copy of a live session's three files is what a kill -9 leaves.
			src := filepath.Join(t.TempDir(), "live.wtlab")
			w, err := Create(src, testMeta(), WriterOptions{Interval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			for _, rec := range synth(25) {
				w.Record(rec)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			for _, suf := range []string{"", "-wal", "-shm"} {
				b, err := os.ReadFile(src + suf)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path+suf, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			mustSpan(t, r, 25)
			r.Close()
			r, err = Open(path) // the records folded in by tidy
			if err != nil {
				t.Fatal(err)
			}
			mustSpan(t, r, 25)
			r.Close()
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.wtlab")
			c.run(t, path)
			if got := dirFiles(t, filepath.Dir(path)); !slices.Equal(got, []string{"run.wtlab"}) {
				t.Errorf("after the last one closed the directory holds %v, want the session alone", got)
			}
			if wal, err := walMode(path); err != nil || wal != c.wal {
				t.Errorf("the closed session's header says WAL mode %v (%v), want %v", wal, err, c.wal)
			}
		})
	}
}

// TestReadOnlyDirectory reads closed sessions (left in rollback mode, and in WAL mode
// without a log) from a directory made read-only: opening and reading succeed and nothing
// appears beside the file. Root ignores permissions, so there only the second holds.
func TestReadOnlyDirectory(t *testing.T) {
	for _, wal := range []bool{false, true} {
		t.Run(map[bool]string{false: "rollback", true: "wal"}[wal], func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ro")
			path := filepath.Join(dir, "run.wtlab")
			closedSession(t, path, 15)
			if wal {
				walWithoutLog(t, path)
			}
			if os.Geteuid() == 0 {
				t.Log("running as root: the directory's permissions are not enforced; checking that no file appears")
			} else {
				if err := os.Chmod(dir, 0o555); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(dir, 0o755) })
			}
			before := dirFiles(t, dir)
			r, err := Open(path)
			if err != nil {
				t.Fatalf("open in a read-only directory: %v", err)
			}
			mustSpan(t, r, 15)
			if _, err := r.Records(1, 15); err != nil {
				t.Fatal(err)
			}
			if got := dirFiles(t, dir); !slices.Equal(got, before) {
				t.Errorf("while open: %v, before %v", got, before)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if got := dirFiles(t, dir); !slices.Equal(got, before) {
				t.Errorf("after close: %v, before %v", got, before)
			}
		})
	}
}
