//go:build unix

package sessions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/sessions/figures"
	"windtunnel/sessions/index"
	"windtunnel/sessions/reports"
	"windtunnel/sessions/runconfig"
)

// writeRun writes a tiny bijection session of seed at path, finished when done (else
// stopped half-way).
func writeRun(t *testing.T, path string, seed int, done bool) {
	t.Helper()
	const steps = 200
	c, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	c.Model, c.Steps, c.Seed = "transformer", steps, uint64(seed)
	cfg, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "transformer", Steps: steps, Config: cfg}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	last, state := steps, sessions.Done
	if !done {
		last, state = steps/2, sessions.Stopped
	}
	for step := 100; step <= last; step += 100 {
		st := sessions.Training
		if step == last {
			st = state
		}
		w.Record(sessions.Record{Step: step, State: st, Eval: &sessions.Eval{BitErrorPosition: 0.5, BitErrorSample: 0.5, KLBits: 0.2, Accuracy: 0.5}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFolderReadersAgree: the four readers of a folder of sessions (compare --from's
// derived.ReadSessionDir, plot's figures.LoadPaths, report's reports.Load and ls's
// index.List) list what sessions.Find lists, each with its documented options (the index
// with the sub-folders), and tell the unfinished run alike: the three that pool runs leave
// it out with derived's note, the index shows it with its state. The folder holds two
// finished runs (one through a link), an unfinished one, a file that is not a session and a
// sub-folder with a finished run.
func TestFolderReadersAgree(t *testing.T) {
	root := t.TempDir()
	dir, elsewhere := filepath.Join(root, "runs"), filepath.Join(root, "elsewhere")
	for _, d := range []string{filepath.Join(dir, "sub"), elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeRun(t, filepath.Join(dir, "a"+sessions.Suffix), 1, true)
	writeRun(t, filepath.Join(dir, "unfinished"+sessions.Suffix), 2, false)
	writeRun(t, filepath.Join(elsewhere, "c"+sessions.Suffix), 3, true)
	writeRun(t, filepath.Join(dir, "sub", "d"+sessions.Suffix), 4, true)
	if err := os.Symlink(filepath.Join(elsewhere, "c"+sessions.Suffix), filepath.Join(dir, "link"+sessions.Suffix)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a session\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := func(o sessions.FindOptions) []string {
		found, err := sessions.Find([]string{dir}, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range found {
			out = append(out, f.Path)
		}
		return out
	}
	own, all := list(sessions.FindOptions{}), list(sessions.FindOptions{Recursive: true})
	unfinished := filepath.Join(dir, "unfinished"+sessions.Suffix)
	finished := slices.DeleteFunc(slices.Clone(own), func(p string) bool { return p == unfinished })
	if len(own) != 3 || len(all) != 4 || len(finished) != 2 {
		t.Fatalf("Find: own %q, all %q", own, all)
	}
	check := func(who string, got, want []string) {
		t.Helper()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q\nwant %q", who, got, want)
		}
	}
	note := func(who string, skipped []string) {
		t.Helper()
		want := fmt.Sprintf("%s: not finished (stopped at step 100 of 200)", unfinished)
		if len(skipped) != 1 || skipped[0] != want {
			t.Errorf("%s skipped %q, want [%q]", who, skipped, want)
		}
	}

	srs, errs, err := derived.ReadSessionDir(dir)
	if err != nil || len(errs) > 0 {
		t.Fatalf("ReadSessionDir: %v %v", err, errs)
	}
	var got []string
	fin := derived.Gather(srs)
	for _, sr := range srs {
		got = append(got, sr.Score.Session)
	}
	check("derived.ReadSessionDir", got, own)
	var notes []string
	for _, sr := range fin.Unfinished {
		notes = append(notes, sr.Score.Session+": "+sr.Unfinished())
	}
	note("derived.Gather", notes)

	runs, skipped, err := figures.LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, r := range runs {
		got = append(got, r.Path)
	}
	check("figures.LoadPaths", got, finished)
	note("figures.LoadPaths", skipped)

	rruns, skipped, err := reports.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, r := range rruns {
		got = append(got, r.Path)
	}
	check("reports.Load", got, finished)
	note("reports.Load", skipped)

	rows, err := index.List(context.Background(), index.Options{Dir: dir, Sockets: t.TempDir(),
		Skip: func(err error) { t.Errorf("index.List skipped %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, r := range rows {
		got = append(got, r.Path)
		if r.Path == unfinished && !strings.Contains(r.State, "stop") {
			t.Errorf("index.List: the unfinished run's state %q", r.State)
		}
	}
	check("index.List", got, all)
}

// TestJustStartedRunLeftOut: a run that has only just started (records, no evaluation yet)
// is not a finished seed: plot's and report's readers leave it out of a folder with a note,
// as they leave out a stopped run (it was once drawn as a seed of its configuration).
func TestJustStartedRunLeftOut(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, filepath.Join(dir, "a"+sessions.Suffix), 1, true)
	started := filepath.Join(dir, "started"+sessions.Suffix)
	c, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	c.Model, c.Steps, c.Seed = "transformer", 200, 2
	cfg, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sessions.Create(started, sessions.Meta{Task: "bijection", Model: "transformer", Steps: 200, Config: cfg}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 10, State: sessions.Training})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	runs, skipped, err := figures.LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := started + ": not finished (training at step 10 of 200)"
	if len(runs) != 1 || len(skipped) != 1 || skipped[0] != want {
		t.Errorf("figures.LoadPaths: %d runs, skipped %q; want 1 run, skipped [%q]", len(runs), skipped, want)
	}
	rruns, rskipped, err := reports.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rruns) != 1 || len(rskipped) != 1 || rskipped[0] != want {
		t.Errorf("reports.Load: %d runs, skipped %q; want 1 run, skipped [%q]", len(rruns), rskipped, want)
	}
}
