package sessions

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWriteOutput (issue 50 item 6): an output is written whole or not at all, never
// through a symbolic link and never over a folder; a write that fails part-way leaves the
// older file as it was and no temporary file.
func TestWriteOutput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	fail := errors.New("disk full (simulated)")
	for _, c := range []struct {
		name    string
		setup   func(t *testing.T, dir, path string) // what is at path before
		write   func(w io.Writer) error
		wantErr error  // nil: success
		want    string // path's contents after ("" and wantErr: none)
	}{
		{"new", func(*testing.T, string, string) {}, text("report\n"), nil, "report\n"},
		{"replaces a file", func(t *testing.T, _, path string) { must(t, os.WriteFile(path, []byte("old\n"), 0o644)) },
			text("new\n"), nil, "new\n"},
		{"a failed write keeps the old file", func(t *testing.T, _, path string) { must(t, os.WriteFile(path, []byte("old good\n"), 0o644)) },
			func(w io.Writer) error { w.Write(bytes.Repeat([]byte("x"), 200<<10)); return fail }, fail, "old good\n"},
		{"a failed write leaves no file", func(*testing.T, string, string) {},
			func(w io.Writer) error { w.Write([]byte("partial")); return fail }, fail, ""},
		{"a link is refused", func(t *testing.T, dir, path string) {
			must(t, os.WriteFile(filepath.Join(dir, "victim"), []byte("precious\n"), 0o644))
			must(t, os.Symlink(filepath.Join(dir, "victim"), path))
		}, text("overwritten\n"), ErrOutputLink, ""},
		{"a dangling link is refused", func(t *testing.T, dir, path string) {
			must(t, os.Symlink(filepath.Join(dir, "nowhere"), path))
		}, text("x"), ErrOutputLink, ""},
		{"a folder is refused", func(t *testing.T, _, path string) { must(t, os.Mkdir(path, 0o755)) }, text("x"), ErrNotRegular, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.md")
			c.setup(t, dir, path)
			err := WriteOutputFunc(path, 0o644, c.write)
			if !errors.Is(err, c.wantErr) || (err != nil && !strings.Contains(err.Error(), path)) {
				t.Fatalf("error %v, want %v naming the path", err, c.wantErr)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "victim")); err == nil && string(b) != "precious\n" {
				t.Errorf("the link's target was written: %q", b)
			}
			got, rerr := os.ReadFile(path)
			switch {
			case c.want != "" && string(got) != c.want:
				t.Errorf("contents %q (%v), want %q", got, rerr, c.want)
			case c.want == "" && c.wantErr == fail && rerr == nil:
				t.Errorf("a failed write left %q", got)
			}
			if c.want != "" {
				if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
					t.Errorf("mode %v (%v), want 0644", st.Mode(), err)
				}
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.Contains(e.Name(), ".tmp-") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}
