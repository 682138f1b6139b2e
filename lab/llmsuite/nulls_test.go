package llmsuite

import (
	"context"
	"path/filepath"
	"testing"

	"windtunnel/models/bpe"
	"windtunnel/models/hf"
	"windtunnel/models/llm"
	"windtunnel/sessions/llmrun"
	"windtunnel/sessions/reports"
	"windtunnel/tunnels/sula"
)

// runWithNulls measures m as `windtunnel llm` does with every null.
func runWithNulls(t *testing.T, m *llm.Model) *llmrun.Result {
	t.Helper()
	opt := Options{Seed: 5, PerK: 8, Nulls: llmrun.NullKinds}
	r, err := Run(context.Background(), m, opt)
	if err != nil {
		t.Fatal(err)
	}
	AddRandomNulls(context.Background(), m, opt, r, t.TempDir(), 2, 2)
	if len(r.Nulls.Random) != 2 || r.Nulls.RandomInits[0] != llm.HFInitStd || r.Nulls.RandomInits[1] != 0 {
		t.Fatalf("random nulls: %d copies, σ %v (warnings %v)", len(r.Nulls.Random), r.Nulls.RandomInits, r.Warnings)
	}
	if r.Nulls.Constant == nil || r.Nulls.Shuffled == nil || r.Nulls.Remap == nil || r.Nulls.Ablation == nil {
		t.Fatalf("nulls missing: %+v (warnings %v)", r.Nulls, r.Warnings)
	}
	return r
}

// constantLabel writes and loads a Phi-shaped folder with random weights and a +100 bias on
// the output logit of SULA's first label: a model that answers that label with certainty.
func constantLabel(t *testing.T) *llm.Model {
	t.Helper()
	tok, err := bpe.Synthesize(Corpus(), 1024, bpe.NeoX)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := bpe.Parse(tok)
	if err != nil {
		t.Fatal(err)
	}
	_, ids, err := sula.Labels(func(s string) ([]int, error) { return tk.Encode(s, false) })
	if err != nil {
		t.Fatal(err)
	}
	c := llm.Config{Family: llm.Phi, Layers: 3, Hidden: 32, Heads: 4, KVHeads: 4, HeadDim: 8, Intermediate: 64, Vocab: 1024,
		RotaryDim: 4, RopeTheta: 10000, NormEps: 1e-5, ParallelResidual: true, SharedNorm: true, Act: llm.GELUTanh, MaxPositions: 256}
	dir := filepath.Join(t.TempDir(), "constant")
	edit := func(name string, dst []float32) {
		if name == "lm_head.bias" {
			dst[ids[0]] = 100
		}
	}
	if err := llm.WriteRandom(dir, c, llm.RandomOptions{DType: hf.F32, Seed: 3, Tokenizer: tok, Edit: edit}); err != nil {
		t.Fatal(err)
	}
	m, err := llm.Load(dir, llm.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// TestNullsEarnNothing is the referee's test: models that learnt nothing — random-weight
// GPT-NeoX and Llama folders, and a model that always answers one label with certainty — get
// no row "reproduced", each row's verdict decided beside its nulls.
func TestNullsEarnNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("measures three tiny models and their random copies (~10 s)")
	}
	for _, tc := range []struct {
		name string
		m    func(*testing.T) *llm.Model
	}{
		{"gpt_neox", func(t *testing.T) *llm.Model { return tiny(t, llm.GPTNeoX) }},
		{"llama", func(t *testing.T) *llm.Model { return tiny(t, llm.Llama) }},
		{"constant label", constantLabel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runWithNulls(t, tc.m(t))
			consistent := 0
			for _, row := range reports.LLMRows(r) {
				switch row.Verdict {
				case reports.Reproduced:
					t.Errorf("%q: reproduced on a model that learnt nothing (%s; nulls: %s)", row.Claim, row.Reason, row.Nulls)
				case reports.Consistent:
					consistent++
				}
			}
			t.Logf("%d rows consistent, not diagnostic", consistent)
			if tc.name == "constant label" {
				// The constant model is certain: its entropy error is E[H(p*)], the constant
				// predictor's own, which the paper's band cannot tell from calibration.
				if d := float64(r.SULA.EntropyError) - float64(r.Nulls.Constant.EntropyError); d > 1e-3 || d < -1e-3 {
					t.Errorf("constant model's entropy error %.4f, the constant predictor's %.4f", r.SULA.EntropyError, r.Nulls.Constant.EntropyError)
				}
			}
		})
	}
}

// TestPredictorsAreAnalytic checks the predictor nulls against their closed forms: the
// constant label's entropy error is the mean posterior entropy, the uniform's the mean of
// 1 − H, and both are right on half the untied prompts in expectation.
func TestPredictorsAreAnalytic(t *testing.T) {
	ps, err := sula.Generate(sula.Config{Ks: sula.Ks, PerK: 400, Alpha: sula.Alpha, Seed: 1, Labels: [2]string{"dax", "wug"}})
	if err != nil {
		t.Fatal(err)
	}
	sp := &sulaSpec{ps: ps}
	c, u := sp.predictors()
	var h float64
	for _, e := range sp.bayesEntropy() {
		h += e
	}
	h /= float64(len(ps))
	for _, tc := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"constant entropy error", float64(c.EntropyError), h, 1e-9},
		{"uniform entropy error", float64(u.EntropyError), 1 - h, 1e-9},
		{"constant accuracy", float64(c.AccuracyUntied), 0.5, 0.05},
		{"uniform accuracy", float64(u.AccuracyUntied), 0.5, 1e-12},
		// E[H(p*)] over k ∈ {0, 1, 2, 4, 8} at α = 0.9 is 0.363 bits (the figure).
		{"mean posterior entropy", h, 0.363, 0.02},
	} {
		if d := tc.got - tc.want; d > tc.tol || d < -tc.tol {
			t.Errorf("%s: %.4f, want %.4f ± %g", tc.name, tc.got, tc.want, tc.tol)
		}
	}
}
