package runpicker

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"windtunnel/sessions"
	"windtunnel/sessions/index"
)

// Query is the picker's filter: ls's conditions (index.ParseWhere: task=hmm, tag=lr,
// bit_error<0.1, seed=2) and free words, each of which a run's state, task, model, name,
// tags or session path must contain (any case). Every part must hold.
type Query struct {
	conds []index.Condition
	words []string
}

// ParseQuery reads a filter typed in the picker: parts separated by spaces, a part with an
// operator (=, !=, <, >, <=, >=) a condition of ls --where, any other a word.
func ParseQuery(s string) (Query, error) {
	var q Query
	for _, part := range strings.Fields(s) {
		if !strings.ContainsAny(part, "=<>!") {
			q.words = append(q.words, strings.ToLower(part))
			continue
		}
		c, err := index.ParseWhere(part)
		if err != nil {
			return Query{}, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "--where "))
		}
		q.conds = append(q.conds, c)
	}
	return q, nil
}

// Keep reports whether the run passes the filter.
func (q Query) Keep(r index.Run) bool {
	for _, c := range q.conds {
		if !c.Match(r) {
			return false
		}
	}
	if len(q.words) == 0 {
		return true
	}
	hay := strings.ToLower(strings.Join([]string{r.State, r.Task, r.Model, r.Labels.Name, strings.Join(r.Labels.Tags, ","), r.Path}, " "))
	for _, w := range q.words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// SortKeys are the orders s cycles through: the index's (live runs, then the newest
// sessions), then by one of ls's sort keys.
var SortKeys = []string{"", "state", "task", "model", "step", "bit_error", "name", "path"}

// sortKeys are the orders s cycles through in a folder with settings: SortKeys, then each
// swept flag (one not already among them), bit error (b) and accuracy.
func sortKeys(set index.Settings) []string {
	if len(set.Flags) == 0 {
		return SortKeys
	}
	keys := slices.Clone(SortKeys)
	for _, f := range append(slices.Clone(set.Flags), "bit_error_sample", "accuracy") {
		if !slices.Contains(keys, f) {
			keys = append(keys, f)
		}
	}
	return keys
}

// sortRuns orders the runs by key: a swept flag of set by its values (index.CompareSetting:
// numbers as numbers, runs without one last either way), any other key as ls does
// (index.Sort); reverse reverses it.
func sortRuns(runs []index.Run, key string, set index.Settings, reverse bool) {
	if slices.Contains(SortKeys, key) || !slices.Contains(set.Flags, key) {
		index.Sort(runs, key, reverse)
		return
	}
	slices.SortStableFunc(runs, func(a, b index.Run) int {
		va, vb := set.Of(a, key), set.Of(b, key)
		if c, ok := index.MissingLast(va != "", vb != ""); ok {
			return c
		}
		if reverse {
			return -index.CompareSetting(va, vb)
		}
		return index.CompareSetting(va, vb)
	})
}

// sortName is how the header names a sort key.
func sortName(key string) string {
	if key == "" {
		return "newest"
	}
	return key
}

// List lists the runs of a folder for the picker (index.List): the recorded sessions under
// dir, of any age, and the live runs whose sessions are there. sockets is the live runs'
// folder ("": relay.SocketDir). A session that cannot be read is left out.
func List(ctx context.Context, dir, sockets string) ([]index.Run, error) {
	rows, err := index.List(ctx, index.Options{Dir: dir, Sockets: sockets})
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("runpicker: %w", err)
	}
	out := rows[:0]
	for _, r := range rows {
		if r.Live == nil || Under(root, r.Path) {
			out = append(out, r)
		}
	}
	return out, nil
}

// Under reports whether path (made absolute) is in the folder root (absolute) or below it.
func Under(root, path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Group is the folder, relative to root, that holds a session — a sweep's or a compare's
// folder under runs/ — made safe to print; "" for a session directly in root or outside
// it.
func Group(root, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(root, filepath.Dir(abs))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return sessions.SafeText(filepath.ToSlash(rel))
}
