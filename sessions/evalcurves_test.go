package sessions

import (
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestEvalPerPositionCurves writes an evaluation with per-position KL and TVD (a null among
// them) and one without, and reads both back: the curves as written, nil where absent.
func TestEvalPerPositionCurves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "curves.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	with := Eval{KLBits: 0.2, TVD: 0.1, ModelEntropy: []float64{1, 2}, BayesEntropy: []float64{1, 2.5},
		KLByPosition: []Num{0.1, Num(math.NaN())}, TVDByPosition: []Num{0.05, 0.15}}
	without := Eval{KLBits: 0.3, ModelEntropy: []float64{1, 2}, BayesEntropy: []float64{1, 2.5}}
	w.Record(Record{Step: 1, State: Training, Eval: &with})
	w.Record(Record{Step: 2, State: Training, Eval: &without})
	r := closeAndOpen(t, w, path)
	got, err := r.Records(0, 10)
	if err != nil || len(got) != 2 {
		t.Fatalf("records %v, %v", got, err)
	}
	e := got[0].Eval
	if len(e.KLByPosition) != 2 || e.KLByPosition[0] != 0.1 || !math.IsNaN(float64(e.KLByPosition[1])) ||
		!reflect.DeepEqual(e.TVDByPosition, with.TVDByPosition) {
		t.Errorf("read back KL %v TVD %v, wrote %v %v", e.KLByPosition, e.TVDByPosition, with.KLByPosition, with.TVDByPosition)
	}
	if e := got[1].Eval; e.KLByPosition != nil || e.TVDByPosition != nil || !reflect.DeepEqual(*e, without) {
		t.Errorf("evaluation without curves read back as %+v", *e)
	}
}

// TestEvalCurvesOldSession reads the checked-in fixture, written before the per-position KL
// and TVD were recorded: its evaluations decode, with both curves nil.
func TestEvalCurvesOldSession(t *testing.T) {
	r, err := Open(filepath.Join("..", "tui", "testdata", "fixture.wtlab"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	evs, err := r.Evals(-1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) == 0 {
		t.Fatal("the fixture has no evaluations")
	}
	for _, rec := range evs {
		e := rec.Eval
		if len(e.ModelEntropy) == 0 || e.KLByPosition != nil || e.TVDByPosition != nil {
			t.Fatalf("step %d: entropies %d, KL %v, TVD %v", rec.Step, len(e.ModelEntropy), e.KLByPosition, e.TVDByPosition)
		}
	}
}

// TestDivergedEvalRecorded writes the records of a run whose model diverged: an evaluation
// whose entropies and scores are NaN and ±Inf between two finite ones, then a failed record
// with a NaN loss, in one commit. Every record is kept (an unencodable evaluation once
// failed the whole commit and stopped the writer), the non-finite numbers read back as NaN
// (curves, stored as null) or as written (scalars), and the writer reports no error.
func TestDivergedEvalRecorded(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	path := filepath.Join(t.TempDir(), "diverged.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ok := Eval{BitErrorPosition: 0.5, ModelEntropy: []float64{1, 2}, BayesEntropy: []float64{1, 2.5}}
	bad := Eval{BitErrorPosition: nan, BitErrorSample: inf, KLBits: math.Inf(-1), ModelEntropy: []float64{nan, inf}, BayesEntropy: []float64{1, 2.5},
		KLByPosition: []Num{Num(nan), Num(inf)}, Ablated: []Head{{0, 1}}}
	w.Record(Record{Step: 1, Loss: 3, State: Training, Eval: &ok})
	w.Record(Record{Step: 2, Loss: inf, State: Training, Eval: &bad})
	w.Record(Record{Step: 3, Loss: nan, State: Failed, Message: "loss is NaN at step 3"})
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.Records(0, 10)
	if err != nil || len(got) != 3 {
		t.Fatalf("read %d records (%v), want 3", len(got), err)
	}
	if !reflect.DeepEqual(*got[0].Eval, ok) {
		t.Errorf("finite evaluation read back as %+v", *got[0].Eval)
	}
	e := got[1].Eval
	if e == nil || !math.IsNaN(e.BitErrorPosition) || !math.IsInf(e.BitErrorSample, 1) || !math.IsInf(e.KLBits, -1) ||
		len(e.ModelEntropy) != 2 || !math.IsNaN(e.ModelEntropy[0]) || !math.IsNaN(e.ModelEntropy[1]) ||
		!reflect.DeepEqual(e.BayesEntropy, bad.BayesEntropy) || len(e.KLByPosition) != 2 || !reflect.DeepEqual(e.Ablated, bad.Ablated) {
		t.Errorf("diverged evaluation read back as %+v", e)
	}
	if !math.IsInf(got[1].Loss, 1) || got[2].State != Failed || !math.IsNaN(got[2].Loss) || got[2].Message != "loss is NaN at step 3" {
		t.Errorf("records 2 and 3 read back as %+v and %+v", got[1], got[2])
	}
}
