package lab

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"windtunnel/sessions"
)

// TestEvalPerPositionCurvesRecorded runs a tiny trainer into a session file and checks the
// per-position KL and TVD it records: the final evaluation's curves equal the run summary's
// per-position curves, and every evaluation's curves average (uniformly over the scored
// positions, as diagnostics.Score does) to its scalar KL and TVD.
func TestEvalPerPositionCurvesRecorded(t *testing.T) {
	c := tiny("transformer")
	c.Steps, c.EvalEvery, c.ProbeSize = 20, 10, 32
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "curves.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: c.Task, Model: c.Model, Steps: c.Steps}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr.Attach(w)
	res, err := tr.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	evs, err := r.Evals(-1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) < 2 {
		t.Fatalf("%d evaluations recorded, want at least 2", len(evs))
	}
	mean := func(xs []sessions.Num) float64 {
		s := 0.0
		for _, x := range xs {
			s += float64(x)
		}
		return s / float64(len(xs))
	}
	for _, rec := range evs {
		e := rec.Eval
		n := len(e.ModelEntropy)
		if len(e.KLByPosition) != n || len(e.TVDByPosition) != n {
			t.Fatalf("step %d: %d KLs, %d TVDs for %d positions", rec.Step, len(e.KLByPosition), len(e.TVDByPosition), n)
		}
		if m := mean(e.KLByPosition); math.Abs(m-e.KLBits) > 1e-9 {
			t.Errorf("step %d: mean per-position KL %v, KL %v", rec.Step, m, e.KLBits)
		}
		if m := mean(e.TVDByPosition); math.Abs(m-e.TVD) > 1e-9 {
			t.Errorf("step %d: mean per-position TVD %v, TVD %v", rec.Step, m, e.TVD)
		}
	}
	last := evs[len(evs)-1]
	if last.Step != res.Steps || len(last.Eval.Ablated) != 0 {
		t.Fatalf("last evaluation at step %d (ablated %v), run ended at %d", last.Step, last.Eval.Ablated, res.Steps)
	}
	want := res.Scores.PerPosition
	if len(want.KLBits) != len(last.Eval.KLByPosition) || len(want.TVD) != len(last.Eval.TVDByPosition) {
		t.Fatalf("summary has %d KLs and %d TVDs, session %d and %d", len(want.KLBits), len(want.TVD), len(last.Eval.KLByPosition), len(last.Eval.TVDByPosition))
	}
	for p, kl := range want.KLBits {
		if d := math.Abs(float64(last.Eval.KLByPosition[p]) - kl); d > 1e-12 {
			t.Errorf("position %d: session KL %v, summary %v", p, last.Eval.KLByPosition[p], kl)
		}
		if d := math.Abs(float64(last.Eval.TVDByPosition[p]) - want.TVD[p]); d > 1e-12 {
			t.Errorf("position %d: session TVD %v, summary %v", p, last.Eval.TVDByPosition[p], want.TVD[p])
		}
	}
}
