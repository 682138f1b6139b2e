package sessions

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestScalarsThinned holds Scalars' thinned read to its definition, at each of Thin's steps
// the newest record at or before it (At without the snapshot), repeats dropped: on a run
// resumed behind its last step (steps recorded twice, the later record wins) and with gaps
// between steps.
func TestScalarsThinned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "thin.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recs := synth(60)
	for _, r := range synth(100)[40:] { // resumed at 40: steps 41–60 again, other losses
		r.Loss += 1
		recs = append(recs, r)
	}
	for s := 120; s <= 200; s += 5 {
		recs = append(recs, Record{Step: s, Loss: 1 / float64(s), State: Training})
	}
	for _, r := range recs {
		w.Record(r)
	}
	r := closeAndOpen(t, w, path)
	for _, c := range []struct{ upTo, max int }{{-1, 7}, {-1, 2}, {-1, 1}, {55, 13}, {130, 40}, {200, 199}, {-1, 150}} {
		got, err := r.Scalars(c.upTo, c.max)
		if err != nil {
			t.Fatal(err)
		}
		hi := c.upTo
		if hi < 0 {
			hi = 200
		}
		var want []Record
		for _, k := range Thin(hi, c.max) {
			rec, ok, err := r.At(1 + k)
			if err != nil || !ok {
				t.Fatalf("At(%d): %v %v", 1+k, ok, err)
			}
			rec.Snapshot = nil
			if n := len(want); n == 0 || want[n-1].Step != rec.Step {
				want = append(want, rec)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Scalars(%d, %d): %d records, want %d:\n%+v\n%+v", c.upTo, c.max, len(got), len(want), got, want)
		}
	}
}
