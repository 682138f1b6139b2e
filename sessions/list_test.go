//go:build unix

package sessions

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// findTree plants a folder of every kind Find meets and returns it and a folder outside it:
//
//	runs/a.wtlab, runs/b.wtlab (b standing for an unfinished run: Find opens neither)
//	runs/notes.txt                  a file that is not a session
//	runs/link.wtlab -> out/c.wtlab  a link to a session file
//	runs/dangling.wtlab -> nowhere  a link to nothing
//	runs/outlink -> out             a link to a folder (not followed)
//	runs/sub/d.wtlab, runs/sub/deeper/e.wtlab, runs/box.wtlab/f.wtlab (a folder so named)
//	runs/empty/                     a folder with no session
func findTree(t *testing.T) (runs, out string) {
	t.Helper()
	root := t.TempDir()
	runs, out = filepath.Join(root, "runs"), filepath.Join(root, "out")
	for _, d := range []string{"sub/deeper", "box.wtlab", "empty"} {
		must(t, os.MkdirAll(filepath.Join(runs, d), 0o755))
	}
	must(t, os.MkdirAll(out, 0o755))
	for _, f := range []string{"runs/a.wtlab", "runs/b.wtlab", "runs/notes.txt", "runs/sub/d.wtlab",
		"runs/sub/deeper/e.wtlab", "runs/box.wtlab/f.wtlab", "out/c.wtlab"} {
		must(t, os.WriteFile(filepath.Join(root, f), nil, 0o644))
	}
	must(t, os.Symlink(filepath.Join(out, "c.wtlab"), filepath.Join(runs, "link.wtlab")))
	must(t, os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(runs, "dangling.wtlab")))
	must(t, os.Symlink(out, filepath.Join(runs, "outlink")))
	return runs, out
}

// TestFind: the one lister of a folder's sessions, on nested folders, an unfinished run, a
// file that is not a session, links to a file, to nothing and to a folder, a folder named
// twice, an empty folder and a missing path.
func TestFind(t *testing.T) {
	runs, out := findTree(t)
	own := []string{"runs/a.wtlab", "runs/b.wtlab", "runs/dangling.wtlab", "runs/link.wtlab"}
	for _, c := range []struct {
		name  string
		paths []string // relative to runs' parent
		o     FindOptions
		want  []string // relative to runs' parent; "named:" marks a path named itself
		err   error
	}{
		{"a folder's own sessions", []string{"runs"}, FindOptions{}, own, nil},
		{"with its sub-folders", []string{"runs"}, FindOptions{Recursive: true},
			[]string{"runs/a.wtlab", "runs/b.wtlab", "runs/box.wtlab/f.wtlab", "runs/dangling.wtlab",
				"runs/link.wtlab", "runs/sub/d.wtlab", "runs/sub/deeper/e.wtlab"}, nil},
		{"a file named, whatever its name", []string{"runs/notes.txt", "runs/a.wtlab"}, FindOptions{},
			[]string{"named:runs/notes.txt", "named:runs/a.wtlab"}, nil},
		{"each once", []string{"runs/b.wtlab", "runs", "runs/"}, FindOptions{},
			[]string{"named:runs/b.wtlab", "runs/a.wtlab", "runs/dangling.wtlab", "runs/link.wtlab"}, nil},
		{"a link to a folder, named", []string{"runs/outlink"}, FindOptions{}, []string{"runs/outlink/c.wtlab"}, nil},
		{"a sub-folder named", []string{"runs/sub"}, FindOptions{}, []string{"runs/sub/d.wtlab"}, nil},
		{"an empty folder", []string{"runs/empty"}, FindOptions{}, nil, ErrNoSessions},
		{"an empty folder that may be", []string{"runs/empty"}, FindOptions{MayBeEmpty: true}, nil, nil},
		{"a missing path", []string{"runs/gone"}, FindOptions{}, nil, fs.ErrNotExist},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Dir(runs)
			var paths []string
			for _, p := range c.paths {
				paths = append(paths, filepath.Join(base, p)+map[bool]string{true: "/"}[strings.HasSuffix(p, "/")])
			}
			found, err := Find(paths, c.o)
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if err != nil {
				if !strings.Contains(err.Error(), c.paths[0]) {
					t.Errorf("error %q does not name %s", err, c.paths[0])
				}
				return
			}
			var got []string
			for _, f := range found {
				rel, _ := filepath.Rel(base, f.Path)
				if f.Named {
					rel = "named:" + rel
				}
				got = append(got, rel)
				if f.Info == nil {
					t.Errorf("%s: no FileInfo", f.Path)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("found %q\nwant  %q", got, c.want)
			}
		})
	}
	// A link's Info is its target's: the index's age filter and live-run match see the file.
	found, err := Find([]string{runs}, FindOptions{})
	must(t, err)
	target, err := os.Stat(filepath.Join(out, "c.wtlab"))
	must(t, err)
	for _, f := range found {
		if filepath.Base(f.Path) == "link.wtlab" && !os.SameFile(f.Info, target) {
			t.Error("link.wtlab: Info is not its target's")
		}
	}
}

// TestFindUnreadable: a sub-folder that cannot be read is told to Skip and the search goes
// on; without Skip it is the error.
func TestFindUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder")
	}
	runs, _ := findTree(t)
	locked := filepath.Join(runs, "sub")
	must(t, os.Chmod(locked, 0))
	defer os.Chmod(locked, 0o755)
	var skipped []error
	found, err := Find([]string{runs}, FindOptions{Recursive: true, Skip: func(err error) { skipped = append(skipped, err) }})
	if err != nil || len(skipped) != 1 || !strings.Contains(skipped[0].Error(), locked) || len(found) != 5 {
		t.Errorf("with Skip: %d found, error %v, skipped %v; want 5 found and sub skipped", len(found), err, skipped)
	}
	if _, err := Find([]string{runs}, FindOptions{Recursive: true}); err == nil || !strings.Contains(err.Error(), locked) {
		t.Errorf("without Skip: error %v, want one naming %s", err, locked)
	}
}

// TestDefaultNames: a default output name is RunsDir, then a kind and Stamp's time.
func TestDefaultNames(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.Local)
	if got := Stamp(now); got != "20260102-150405" {
		t.Errorf("Stamp %q", got)
	}
	if RunsDir != "runs" || Suffix != ".wtlab" {
		t.Errorf("RunsDir %q, Suffix %q", RunsDir, Suffix)
	}
}
