package sessions

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// synth returns n records of a plausible run, with an evaluation and snapshot every 10 steps.
func synth(n int) []Record {
	var out []Record
	for s := 1; s <= n; s++ {
		r := Record{Step: s, WallS: float64(s) * 0.05, Loss: 3 / math.Sqrt(float64(s)), LR: 1e-3, GradNorm: 0.5, StepsPerS: 20, State: Training}
		if s%10 == 0 {
			r.Eval = &Eval{BitErrorPosition: 1 / float64(s), BitErrorSample: 1.5 / float64(s), KLBits: 0.1, TVD: 0.2, Accuracy: 0.9,
				ModelEntropy: []float64{3, 2, 1}, BayesEntropy: []float64{3, 2.1, 0.9},
				KLByPosition: []Num{0.05, 0.1, 0.15}, TVDByPosition: []Num{0.1, 0.2, 0.3}}
			r.Snapshot = &Snapshot{AttentionEntropy: [][]float64{{1, 2}, {float64(s), 0.5}}}
		}
		out = append(out, r)
	}
	return out
}

func testMeta() Meta {
	return Meta{Task: "bijection", Model: "transformer", Params: 1234, Layers: 2, Heads: 2, Steps: 100, Device: "cpu",
		Version: "test", Host: "h", Created: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), Config: []byte(`{"task":"bijection"}`)}
}

// closeAndOpen closes the writer w of the session at path and opens it for reading, closed
// when the test ends.
func closeAndOpen(t testing.TB, w *Writer, path string) *Reader {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "run.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	recs := synth(100)
	for i, r := range recs {
		w.Record(r)
		if i == 50 {
			w.Event(Event{Step: r.Step, Kind: EventHead, Layer: 1, Head: 0, On: false})
		}
	}
	ck := &Checkpoint{Step: 100, WallS: 5, Params: []Tensor{{Name: "w", Shape: []int{2, 3}, F32: []float32{1, 2, 3, 4, 5, 6}}},
		OptStep: 100, M: []Tensor{{Name: "w", Shape: []int{2, 3}, F64: []float64{.1, .2, .3, .4, .5, .6}}},
		V: []Tensor{{Name: "w", Shape: []int{2, 3}, F64: []float64{1, 1, 1, 1, 1, math.Inf(1)}}}}
	w.Checkpoint(ck)
	r := closeAndOpen(t, w, path)
	if m := r.Meta(); m.Task != "bijection" || m.Params != 1234 || !m.Created.Equal(testMeta().Created) || m.Path != path {
		t.Errorf("meta %+v", m)
	}
	got, err := r.Records(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Fatalf("records differ: got %d, want %d; first %+v vs %+v", len(got), len(recs), got[9], recs[9])
	}
	at, ok, err := r.At(55)
	if err != nil || !ok || at.Step != 55 {
		t.Errorf("At(55) = %v %v %v", at.Step, ok, err)
	}
	sn, st, err := r.Snapshot(55)
	if err != nil || st != 50 || sn.AttentionEntropy[1][0] != 50 {
		t.Errorf("Snapshot(55) = %v at %d, %v", sn, st, err)
	}
	ev, _ := r.Evals(-1, 0)
	if len(ev) != 10 || ev[9].Eval.BitErrorPosition != 0.01 {
		t.Errorf("Evals: %d", len(ev))
	}
	sc, _ := r.Scalars(-1, 7)
	if len(sc) != 7 || sc[0].Step != 1 || sc[6].Step != 100 {
		t.Errorf("Scalars thinned: %d records, %v..%v", len(sc), sc[0].Step, sc[len(sc)-1].Step)
	}
	es, _ := r.Events(-1)
	if len(es) != 1 || es[0].Kind != EventHead || es[0].Layer != 1 || es[0].Step != 51 {
		t.Errorf("events %+v", es)
	}
	c, ok, err := r.Checkpoint(-1)
	if err != nil || !ok || !reflect.DeepEqual(c, ck) {
		t.Errorf("checkpoint %+v %v %v", c, ok, err)
	}
}

// A snapshot that cannot be encoded as JSON (NaN in a plain float) is dropped from its
// record with a message; the record and its neighbours are kept.
func TestUnencodableSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nan.wtlab")
	w, err := Create(path, Meta{Task: "bijection", Model: "transformer"}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(Record{Step: 1, Loss: 1})
	w.Record(Record{Step: 2, Loss: 2, Snapshot: &Snapshot{KeyOrthogonalityRandom: math.NaN()}})
	w.Record(Record{Step: 3, Loss: 3})
	r := closeAndOpen(t, w, path)
	recs, err := r.Records(1, 3)
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if recs[1].Snapshot != nil || !strings.Contains(recs[1].Message, "snapshot not recorded") {
		t.Errorf("record 2: snapshot %v, message %q", recs[1].Snapshot, recs[1].Message)
	}
}
