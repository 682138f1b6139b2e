package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Suffix ends the name of every session file ("run.wtlab"); it is written here and nowhere
// else.
const Suffix = ".wtlab"

// ErrNoSessions is the error (wrapped) for a folder named to read sessions from that holds
// none.
var ErrNoSessions = errors.New("no sessions (*" + Suffix + ") in it")

// FindOptions say where Find looks in a folder.
type FindOptions struct {
	// Recursive looks in each folder's sub-folders too, at any depth; otherwise only the
	// folder's own files are listed.
	Recursive bool
	// MayBeEmpty lets a folder hold no session (none listed); otherwise such a folder is an
	// error wrapping ErrNoSessions.
	MayBeEmpty bool
	// Skip is told of each sub-folder or entry that cannot be read, and the search goes on;
	// nil: Find stops with the error.
	Skip func(error)
}

// Found is one session file Find lists.
type Found struct {
	// Path is the file: a path named, or one found in a folder named (joined to it).
	Path string
	// Info describes the file (a link's target, for a link).
	Info fs.FileInfo
	// Named is true for a path named itself, false for one found in a folder.
	Named bool
}

// Find lists the session files of paths, each once, in the order named: a path that is a
// file (or a link to one) as it is, whatever its name; a folder (or a link to one) for the
// files in it whose names end in Suffix, in path order. Links inside a folder are followed
// to files, never to folders (no loops). It opens no session: unreadable and unfinished
// runs are listed like the others, for their readers to tell (doc.go). A path that does not
// exist is an error naming it.
func Find(paths []string, o FindOptions) ([]Found, error) {
	var out []Found
	seen := map[string]bool{}
	add := func(f Found) {
		if !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err // an *fs.PathError: it names p
		}
		if !fi.IsDir() {
			add(Found{Path: p, Info: fi, Named: true})
			continue
		}
		found, err := findIn(p, o)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 && !o.MayBeEmpty {
			return nil, fmt.Errorf("%s: %w", p, ErrNoSessions)
		}
		for _, f := range found {
			add(f)
		}
	}
	return out, nil
}

// findIn lists the session files in the folder dir (its sub-folders' too when o.Recursive).
func findIn(dir string, o FindOptions) ([]Found, error) {
	root := dir
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator) // a link to a folder, given as the folder: followed
	}
	var out []Found
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if o.Skip == nil || path == root {
				return err
			}
			o.Skip(err)
			return nil
		}
		if d.IsDir() {
			if path != root && !o.Recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), Suffix) {
			return nil
		}
		// A link's target; a dangling link is listed, for its reader to say why it cannot be read.
		fi, err := os.Stat(path)
		if err != nil {
			if fi, err = d.Info(); err != nil {
				if o.Skip == nil {
					return err
				}
				o.Skip(err)
				return nil
			}
		}
		if fi.IsDir() {
			return nil // a folder named *.wtlab, or a link to one: not followed
		}
		out = append(out, Found{Path: filepath.Join(dir, strings.TrimPrefix(path, root)), Info: fi})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Found) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// RunsDir is the folder runs are kept in when no other is named: a run's session (run
// without --out), the folders of compare, sweep and primitives, and the folder ls and serve
// look in.
const RunsDir = "runs"

// Stamp is the time as a default output name carries it ("20260102-150405", local time).
func Stamp(t time.Time) string { return t.Format("20060102-150405") }
