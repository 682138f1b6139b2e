package sessions

import (
	"path/filepath"
	"testing"
)

// TestGeometryBesideSummaries: a geometry snapshot followed at its own step by an
// evaluation's attention summary (a run stopped right after the snapshot), and a summary at
// a later step: Snapshot returns the newest record's, Geometry and JLensAt the geometry
// snapshot's, SnapshotsAt both at the shared step in the order written.
func TestGeometryBesideSummaries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.wtlab")
	w, err := Create(path, Meta{Task: "bijection", Model: "transformer", Steps: 200}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	summary := func() *Snapshot { return &Snapshot{AttentionEntropy: [][]float64{{1.5}}} }
	geo := &Snapshot{AttentionEntropy: [][]float64{{2}}, Frame: &Frame{Points: []FramePoint{{Step: 100, BitError: 0.5}}},
		JLens: &JLens{Statistic: JLensStatistic, Sites: []int{-1}, Width: 8, Rank: 2, FrameRank: 4, Seqs: 4,
			Null: 0.25, Overlap: []Num{0.5}, Frame: make([]float32, 8*4), Basis: [][]float32{make([]float32, 8*2)}}}
	e := &Eval{BitErrorPosition: 0.5, BitErrorSample: 0.6}
	for _, r := range []Record{
		{Step: 50, State: Training, Eval: e, Snapshot: summary()},
		{Step: 100, State: Training, Eval: e, Snapshot: geo},
		{Step: 100, State: Stopped, Eval: e, Snapshot: summary()},
		{Step: 150, State: Training, Eval: e, Snapshot: summary()},
	} {
		w.Record(r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for _, c := range []struct {
		step, want int
		frame      bool
	}{{-1, 100, true}, {150, 100, true}, {100, 100, true}, {99, 0, false}} {
		s, at, err := rd.Geometry(c.step)
		if err != nil || (s != nil) != c.frame || at != c.want || (s != nil && s.Frame == nil) {
			t.Errorf("Geometry(%d) = %v at %d, %v; want a frame %v at %d", c.step, s != nil, at, err, c.frame, c.want)
		}
	}
	if s, at, _ := rd.Snapshot(-1); s == nil || at != 150 || s.Frame != nil {
		t.Errorf("Snapshot(-1) at %d: want the summary at 150", at)
	}
	if s, _, _ := rd.Snapshot(100); s == nil || s.Frame != nil {
		t.Errorf("Snapshot(100): want the summary written last at 100")
	}
	all, err := rd.SnapshotsAt(100)
	if err != nil || len(all) != 2 || all[0].Frame == nil || all[1].Frame != nil {
		t.Errorf("SnapshotsAt(100): %d snapshots, %v; want the geometry snapshot then the summary", len(all), err)
	}
	for _, c := range []struct {
		step int
		want bool
	}{{100, true}, {50, false}, {150, false}, {7, false}} {
		j, err := rd.JLensAt(c.step)
		if err != nil || (j != nil) != c.want {
			t.Errorf("JLensAt(%d) = %v, %v; want one: %v", c.step, j != nil, err, c.want)
		}
	}
}
