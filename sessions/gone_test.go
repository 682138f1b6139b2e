package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriterNoticesGoneFile: once its file is removed or replaced, a Writer's next commit
// and its Close fail with ErrGone naming the file, however well the writes themselves go.
func TestWriterNoticesGoneFile(t *testing.T) {
	for _, c := range []struct {
		name string
		act  func(path string) error
	}{
		{"removed", os.Remove},
		{"folder removed", func(path string) error { return os.RemoveAll(filepath.Dir(path)) }},
		{"replaced", func(path string) error {
			if err := os.WriteFile(path+".new", []byte("x"), 0o600); err != nil {
				return err
			}
			return os.Rename(path+".new", path)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "runs", "run.wtlab")
			w, err := Create(path, testMeta(), WriterOptions{Interval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			recs := synth(4)
			w.Record(recs[0])
			if err := w.Flush(); err != nil {
				t.Fatalf("flush before: %v", err)
			}
			if err := c.act(path); err != nil {
				t.Fatal(err)
			}
			w.Record(recs[1])
			err = w.Flush()
			if !errors.Is(err, ErrGone) || !strings.Contains(err.Error(), path) {
				t.Errorf("flush after: %v, want ErrGone naming %s", err, path)
			}
			if err := w.Close(); !errors.Is(err, ErrGone) {
				t.Errorf("close: %v, want ErrGone", err)
			}
		})
	}
}
