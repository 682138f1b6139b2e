package lab

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/diagnostics"
	"windtunnel/models"
	"windtunnel/sessions"
	"windtunnel/tunnels"
)

// tinyHMM is a small hmm configuration (K=4, scored also at 8 and 14) that trains in a few
// seconds: evaluations every 5 steps, geometry every 10.
func tinyHMM(model string) runconfig.Config {
	return runconfig.Config{
		Task: "hmm", Tunnel: tunnels.Config{States: 3, Symbols: 3, K: 4}, Model: model,
		Transformer: arch.TransformerConfig{Layers: 1, Heads: 2, Width: 16},
		Steps:       20, Batch: 8, LR: 3e-3, Warmup: 2, Clip: 1, ValueLR: 1, QKLR: 1,
		EvalEvery: 5, ProbeEvery: 10, GeometryN: 8, ProbeSize: 40, Seed: 3, BLAS: "gonum", Workers: 2,
		EvalK: []int{4, 14, 8},
	}
}

func TestEvalKConfig(t *testing.T) {
	c := tinyHMM("transformer")
	if got := c.EvalLengths(); !slices.Equal(got, []int{4, 8, 14}) {
		t.Errorf("EvalLengths %v, want [4 8 14]", got)
	}
	c.EvalK = []int{30, 50}
	if got := c.EvalLengths(); !slices.Equal(got, []int{4, 30, 50}) {
		t.Errorf("EvalLengths without the training K %v, want it implied: [4 30 50]", got)
	}
	c.EvalK = nil
	if got := c.EvalLengths(); got != nil {
		t.Errorf("EvalLengths with no EvalK %v, want nil", got)
	}
	for _, k := range []int{0, -3, tunnels.MaxK + 1} {
		c.EvalK = []int{20, k}
		var fe *arch.FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Field != "EvalK" || fe.Value != k {
			t.Errorf("EvalK [20 %d]: error %v, want a FieldError on EvalK naming %d", k, err, k)
		}
	}
	b := tiny("transformer")
	b.EvalK = []int{20, 30}
	var fe *arch.FieldError
	if err := b.Validate(); !errors.As(err, &fe) || fe.Field != "EvalK" || !strings.Contains(fe.Reason, "hmm") {
		t.Errorf("EvalK on bijection: error %v, want a FieldError on EvalK saying only hmm has a K", err)
	}
	for _, name := range runconfig.PresetNames() {
		for _, task := range tunnels.Names() {
			p, _ := runconfig.Preset(name, task)
			want := []int(nil)
			if task == "hmm" {
				want = []int{20, 30, 50}
			}
			if !slices.Equal(p.EvalK, want) || !slices.Equal(p.EvalLengths(), want) {
				t.Errorf("preset %s %s: EvalK %v (lengths %v), want %v", name, task, p.EvalK, p.EvalLengths(), want)
			}
		}
	}
}

// TestLengthsRecorded runs a tiny hmm transformer with EvalK [K, 2K, K+10] and a head
// switched off, and checks that every evaluation of the whole model (on the cadence and
// the final one) records every length, the training K's entry equal to the main scores,
// and the ablated evaluations none; that the lengths come from the same probe stream (the
// longer sequences extend the shorter: a causal model scores the shared positions alike);
// and that they survive a session file.
func TestLengthsRecorded(t *testing.T) {
	c := tinyHMM("transformer")
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	h14, _ := tunnels.NewHMM(3, 3, 14)
	for _, p := range tr.Model().Params() {
		if p.Name == "pos" && p.Value.Shape()[0] != h14.SeqLen()+1 {
			t.Errorf("position table %v, want %d rows (K=14's %d tokens + 1)", p.Value.Shape(), h14.SeqLen()+1, h14.SeqLen())
		}
	}
	path := filepath.Join(t.TempDir(), "lengths.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "hmm", Model: "transformer", Steps: c.Steps}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sink collector
	tr.Attach(&sink)
	tr.Attach(w)
	if err := tr.Send(sessions.Event{Kind: sessions.EventHead, Layer: 0, Head: 1, On: false}); err != nil {
		t.Fatal(err)
	}
	res, err := tr.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	withLengths, ablated := map[int]*sessions.Eval{}, 0
	for _, r := range sink.records {
		if r.Eval == nil {
			continue
		}
		if len(r.Eval.Ablated) > 0 {
			ablated++
			if r.Eval.Lengths != nil {
				t.Errorf("ablated evaluation at step %d has lengths", r.Step)
			}
			continue
		}
		if r.Eval.Lengths == nil {
			t.Errorf("evaluation at step %d has no lengths", r.Step)
			continue
		}
		withLengths[r.Step] = r.Eval
		e := r.Eval
		var ks []int
		for _, l := range e.Lengths {
			ks = append(ks, l.K)
			if len(l.KLByPosition) != l.K {
				t.Errorf("step %d K=%d: %d per-position KLs", r.Step, l.K, len(l.KLByPosition))
			}
			m := 0.0
			for _, v := range l.KLByPosition {
				m += float64(v)
			}
			if m /= float64(l.K); math.Abs(m-float64(l.KLBits)) > 1e-9 {
				t.Errorf("step %d K=%d: mean per-position KL %v, KL %v", r.Step, l.K, m, l.KLBits)
			}
			if l.Train != (l.K == 4) {
				t.Errorf("step %d K=%d: train %v", r.Step, l.K, l.Train)
			}
		}
		if !slices.Equal(ks, []int{4, 8, 14}) {
			t.Fatalf("step %d: lengths %v, want [4 8 14]", r.Step, ks)
		}
		l4 := e.Lengths[0]
		if float64(l4.KLBits) != e.KLBits || float64(l4.BitErrorPosition) != e.BitErrorPosition ||
			float64(l4.BitErrorSample) != e.BitErrorSample || float64(l4.Accuracy) != e.Accuracy {
			t.Errorf("step %d: K=4 entry %+v differs from the main scores %+v", r.Step, l4, *e)
		}
		for _, l := range e.Lengths[1:] {
			for p := range 4 {
				if d := math.Abs(float64(l.KLByPosition[p] - l4.KLByPosition[p])); d > 1e-3 {
					t.Errorf("step %d: KL at position %d is %v at K=%d, %v at K=4", r.Step, p, l.KLByPosition[p], l.K, l4.KLByPosition[p])
				}
			}
		}
	}
	steps := make([]int, 0, len(withLengths))
	for s := range withLengths {
		steps = append(steps, s)
	}
	slices.Sort(steps)
	if !slices.Equal(steps, []int{5, 10, 15, 20}) || ablated == 0 {
		t.Errorf("lengths recorded at steps %v (%d ablated evaluations), want every evaluation: [5 10 15 20]", steps, ablated)
	}
	if res.Last.Eval == nil || len(res.Last.Eval.Lengths) != 3 {
		t.Errorf("the final evaluation has no lengths: %+v", res.Last.Eval)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, ok, err := r.At(20)
	if err != nil || !ok || got.Eval == nil || len(got.Eval.Lengths) != 3 {
		t.Fatalf("session record at step 20: %+v %v %v, want three lengths", got.Eval, ok, err)
	}
	if want := withLengths[20].Lengths[2]; got.Eval.Lengths[2].K != 14 || got.Eval.Lengths[2].KLBits != want.KLBits ||
		!slices.Equal(got.Eval.Lengths[2].KLByPosition, want.KLByPosition) {
		t.Errorf("K=14 read back %+v, recorded %+v", got.Eval.Lengths[2], want)
	}
}

// TestLengthsPositionTable checks that the model's position table covers the longest
// evaluated sequence, for every model kind, with the baselines capacity-matched at that
// length; that a model built for the training length alone rejects a longer one; and that
// a trainer whose table were too short fails clearly.
func TestLengthsPositionTable(t *testing.T) {
	h14, _ := tunnels.NewHMM(3, 3, 14)
	for _, kind := range arch.Kinds() {
		c := tinyHMM(kind)
		tr, err := New(c)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got, want := tr.Model().NumParams(), models.SpecParams(c.Spec(), h14); got != want {
			t.Errorf("%s: %d parameters, want %d (matched at K=14's length)", kind, got, want)
		}
		if _, err := tr.EvaluateLengths(mustEvaluate(t, tr)); err != nil {
			t.Errorf("%s: evaluating the lengths: %v", kind, err)
		}
	}
	// The quick preset: the baselines stay within 1% of the transformer with K=50's table.
	h50, _ := tunnels.NewHMM(5, 5, 50)
	q, _ := runconfig.Preset(runconfig.PresetQuick, "hmm")
	tf := models.TransformerParams(q.Transformer, h50, 0)
	for _, kind := range []string{arch.KindMLP, arch.KindLSTM, arch.KindMamba} {
		q.Model = kind
		if n := models.SpecParams(q.Spec(), h50); math.Abs(float64(n-tf)) > 0.01*float64(tf) {
			t.Errorf("quick hmm %s: %d parameters, transformer %d", kind, n, tf)
		}
	}

	// A model with the training length's table cannot read K=14.
	c := tinyHMM("transformer")
	c.EvalK = nil
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	b := tunnels.NewBatch(h14, 2)
	b.Fill(h14, tunnels.ProbeStream(1), 0)
	if err := tr.Model().Predict(h14, b, make([]float64, len(b.Posterior))); err == nil || !strings.Contains(err.Error(), "maximum") {
		t.Errorf("a K=4 model predicting K=14: error %v, want one naming its maximum length", err)
	}
	// A trainer whose table were too short for its lengths refuses to start.
	c.EvalK = []int{14}
	tr.cfg, tr.maxLen = c, h14.SeqLen()-1
	if err := tr.setupLengths(); err == nil || !strings.Contains(err.Error(), "K=14") {
		t.Errorf("a position table one short of K=14: error %v, want one naming K=14", err)
	}
}

func mustEvaluate(t *testing.T, tr *Trainer) diagnostics.Scores {
	t.Helper()
	s, err := tr.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
