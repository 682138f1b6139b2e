package sessions

import (
	"database/sql"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Labels set by the run and changed later (Relabel, live and finished) come back from the
// session, and neither the records nor the meta (the configuration) change.
func TestLabels(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/run.wtlab"
	w, err := Create(path, testMeta(), WriterOptions{Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetLabels(Labels{Name: "baseline", Tags: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	recs := synth(40)
	for _, r := range recs[:20] {
		w.Record(r)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	// Live: the writer holds the lock; the edit goes in beside it.
	got, err := Relabel(path, Edit{Add: []string{"b", "a"}, SetNote: true, Note: "lr too high?\nsecond line"})
	if err != nil {
		t.Fatalf("relabel a live session: %v", err)
	}
	want := Labels{Name: "baseline", Tags: []string{"a", "b"}, Note: "lr too high?\nsecond line"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("relabel returned %+v, want %+v", got, want)
	}
	for _, r := range recs[20:] {
		w.Record(r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Finished: taken under the lock, and the session is one file again after.
	if _, err := Relabel(path, Edit{Remove: []string{"a"}, SetName: true, Name: "lr-3e-3"}); err != nil {
		t.Fatalf("relabel a finished session: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("after relabel the directory holds %v", names)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	l, err := r.Labels()
	want = Labels{Name: "lr-3e-3", Tags: []string{"b"}, Note: "lr too high?\nsecond line"}
	if err != nil || !reflect.DeepEqual(l, want) {
		t.Fatalf("labels = %+v, %v; want %+v", l, err, want)
	}
	if m := r.Meta(); string(m.Config) != string(testMeta().Config) || m.Task != "bijection" {
		t.Errorf("meta changed: %+v", m)
	}
	back, err := r.Records(0, 1000)
	if err != nil || !reflect.DeepEqual(back, recs) {
		t.Errorf("records changed: %d, %v", len(back), err)
	}
}

func TestLabelsCheck(t *testing.T) {
	for _, tc := range []struct {
		l    Labels
		want string // "" valid, else part of the error
	}{
		{Labels{Name: "a run", Tags: []string{"x", "y-1"}, Note: "two\nlines"}, ""},
		{Labels{Name: strings.Repeat("n", MaxLabelName+1)}, "name"},
		{Labels{Name: "a\nb"}, "one line"},
		{Labels{Name: "bell\a"}, "one line"},
		{Labels{Tags: []string{"a,b"}}, "commas"},
		{Labels{Tags: []string{""}}, "empty"},
		{Labels{Tags: make([]string, MaxTags+1)}, "tags"},
		{Labels{Note: strings.Repeat("x", MaxNote+1)}, "note"},
		{Labels{Note: "esc\x1b[2J"}, "printable"},
	} {
		err := tc.l.Check()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Check(%+v) = %v, want %q", tc.l, err, tc.want)
		}
	}
}

// A session from elsewhere whose labels are oversized, malformed or out of bounds still
// opens; its labels are an error, read without allocating beyond the bound.
func TestHostileLabels(t *testing.T) {
	for name, value := range map[string]string{
		"huge":      `{"name":"` + strings.Repeat("x", maxLabelsJSON) + `"}`,
		"not json":  `{"name":`,
		"dup key":   `{"name":"a","name":"b"}`,
		"too long":  `{"name":"` + strings.Repeat("x", MaxLabelName+1) + `"}`,
		"control":   `{"tags":["\u001b[2J"]}`,
		"not a row": `[1,2,3]`,
	} {
		t.Run(name, func(t *testing.T) {
			path := t.TempDir() + "/run.wtlab"
			w, err := Create(path, testMeta(), WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO meta(key, value) VALUES('labels', ?)`, value); err != nil {
				t.Fatal(err)
			}
			db.Close()
			r, err := Open(path)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer r.Close()
			if l, err := r.Labels(); err == nil {
				t.Fatalf("labels %+v, want an error", l)
			}
			// tag replaces labels it cannot read.
			if l, err := Relabel(path, Edit{SetName: true, Name: "fixed"}); err != nil || l.Name != "fixed" {
				t.Fatalf("relabel = %+v, %v", l, err)
			}
		})
	}
}
