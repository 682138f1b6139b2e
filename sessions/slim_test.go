package sessions_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"windtunnel/sessions"
	"windtunnel/sessions/sessiontest"
)

// TestSlimDone: a finished run's slim copy keeps every evaluation, the events, the newest
// geometry snapshot and every attention summary, the last record's state, about Rows
// training records and no checkpoint; the original is unchanged.
func TestSlimDone(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "run.wtlab"), filepath.Join(dir, "slim", "run.wtlab")
	if err := sessiontest.WriteDashboard(src); err != nil {
		t.Fatal(err)
	}
	before := readAll(t, src)
	res, err := sessions.Slim(src, mkdirFor(t, dst), sessions.SlimOptions{Rows: 60})
	if err != nil {
		t.Fatal(err)
	}
	after := readAll(t, dst)
	if !res.Done || res.Checkpoint != -1 || len(after.checkpoints) != 0 {
		t.Errorf("done run: %+v, checkpoints %v, want none", res, after.checkpoints)
	}
	if res.BytesKept >= res.Bytes || res.RecordsKept >= res.Records || res.Records != before.count || res.RecordsKept != after.count {
		t.Errorf("sizes %+v; records %d → %d", res, before.count, after.count)
	}
	// 600 steps at a stride of 10: 60 records, plus the evaluations (every 25th step, a
	// multiple of 10 or not), the pause, the ablated evaluation and the done record.
	if after.count < 60 || after.count > 60+24+4 {
		t.Errorf("%d records kept, want about 60 and the special ones", after.count)
	}
	if len(after.evals) != len(before.evals) {
		t.Fatalf("%d evaluations kept of %d", len(after.evals), len(before.evals))
	}
	for i := range before.evals {
		if b, a := before.evals[i], after.evals[i]; b.Step != a.Step || !reflect.DeepEqual(b.Eval, a.Eval) {
			t.Errorf("evaluation %d: %d %v → %d %v", i, b.Step, b.Eval.BitErrorPosition, a.Step, a.Eval.BitErrorPosition)
		}
	}
	if len(after.events) != len(before.events) || after.last.State != sessions.Done || after.last.Step != before.last.Step {
		t.Errorf("events %d → %d; last %v %d → %v %d", len(before.events), len(after.events), before.last.State, before.last.Step, after.last.State, after.last.Step)
	}
	if after.geometry != 1 || before.geometry < 2 || after.summaries != before.summaries || after.newestGeo != before.newestGeo {
		t.Errorf("geometry snapshots %d → %d (newest at %d → %d), summaries %d → %d", before.geometry, after.geometry,
			before.newestGeo, after.newestGeo, before.summaries, after.summaries)
	}
	if again := readAll(t, src); again.count != before.count || len(again.checkpoints) != len(before.checkpoints) {
		t.Errorf("the original changed: %d records → %d", before.count, again.count)
	}
	if _, err := sessions.Slim(src, dst, sessions.SlimOptions{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second slim onto the copy: %v, want refused", err)
	}
}

// TestSlimUnfinished: a run that did not end done keeps its newest checkpoint whole
// (optimizer state and all), so that it resumes, or none with NoCheckpoint; a session
// being written is refused.
func TestSlimUnfinished(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "run.wtlab")
	w, err := sessions.Create(src, sessiontest.DashMeta(), sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ten := func(v float32) []sessions.Tensor {
		return []sessions.Tensor{{Name: "w", Shape: []int{2}, F32: []float32{v, -v}}}
	}
	for s := 1; s <= 300; s++ {
		r := sessions.Record{Step: s, WallS: float64(s), Loss: 1, State: sessions.Training}
		if s%50 == 0 {
			r.Eval = &sessions.Eval{BitErrorPosition: 1 / float64(s), Accuracy: 0.5}
		}
		w.Record(r)
		if s%100 == 0 {
			w.Checkpoint(&sessions.Checkpoint{Step: s, WallS: float64(s), Params: ten(float32(s)), OptStep: s, M: ten(1), V: ten(2)})
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := sessions.Slim(src, filepath.Join(dir, "live.wtlab"), sessions.SlimOptions{}); err == nil || !strings.Contains(err.Error(), "writing it") {
		t.Errorf("slim of a live session: %v, want refused", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "slim.wtlab")
	res, err := sessions.Slim(src, dst, sessions.SlimOptions{Rows: 30})
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, dst)
	if res.Done || res.Checkpoint != 300 || len(got.checkpoints) != 1 || got.checkpoints[0] != 300 {
		t.Fatalf("unfinished run: %+v, checkpoints %v, want the one at 300", res, got.checkpoints)
	}
	rd, err := sessions.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	c, ok, err := rd.Checkpoint(300)
	if err != nil || !ok || c.OptStep != 300 || len(c.M) != 1 || c.Params[0].F32[0] != 300 {
		t.Errorf("checkpoint 300: %v %v %+v, want it whole", ok, err, c)
	}
	if len(got.evals) != 6 || got.count != 30+1 { // steps 10, 20, …, 300 and the first
		t.Errorf("%d evaluations (want 6), %d records (want 31)", len(got.evals), got.count)
	}
	none := filepath.Join(dir, "none.wtlab")
	if res, err := sessions.Slim(src, none, sessions.SlimOptions{NoCheckpoint: true}); err != nil || res.Checkpoint != -1 || len(readAll(t, none).checkpoints) != 0 {
		t.Errorf("NoCheckpoint: %+v %v, want no checkpoint", res, err)
	}
}

// slimView is what the slim tests compare of a session.
type slimView struct {
	count, geometry, summaries, newestGeo int
	evals                                 []sessions.Record
	events                                []sessions.Event
	checkpoints                           []int
	last                                  sessions.Record
}

func readAll(t *testing.T, path string) slimView {
	t.Helper()
	rd, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var v slimView
	if v.count, err = rd.Count(); err != nil {
		t.Fatal(err)
	}
	recs, err := rd.Records(0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	v.last = recs[len(recs)-1]
	if v.evals, err = rd.Evals(-1, 1<<20); err != nil {
		t.Fatal(err)
	}
	if v.events, err = rd.Events(-1); err != nil {
		t.Fatal(err)
	}
	if v.checkpoints, err = rd.Checkpoints(); err != nil {
		t.Fatal(err)
	}
	steps, err := rd.SnapshotSteps()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		snaps, err := rd.SnapshotsAt(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, sn := range snaps {
			if sn.IsGeometry() {
				v.geometry, v.newestGeo = v.geometry+1, s
			} else {
				v.summaries++
			}
		}
	}
	return v
}

func mkdirFor(t *testing.T, path string) string {
	t.Helper()
	if err := sessions.MakeOutputDir(filepath.Dir(path), sessions.DirMode); err != nil {
		t.Fatal(err)
	}
	return path
}
