package lab

import (
	"context"
	"math"
	"testing"
	"time"
	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"

	"windtunnel/models"
)

// uniformBitError is bit error (a) of guessing uniformly over the V values on bijection:
// the mean over key positions j = 0..V−2 of log2 V − log2(V−j).
func uniformBitError(v int) float64 {
	s := 0.0
	for j := 0; j < v-1; j++ {
		s += math.Log2(float64(v)) - math.Log2(float64(v-j))
	}
	return s / float64(v-1)
}

// TestTinyRecurrentLearns trains the capacity-matched LSTM and Mamba on bijection V=8 (the
// tiny transformer's task and target parameter count) for up to 1000 steps: each must get
// well below the bit error of a uniform guess (0.81 bits), to its bound; it stops at the
// first evaluation (every 100 steps) there, and the final evaluation of the stopped model is
// the one held to the bound.
func TestTinyRecurrentLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains an LSTM and a Mamba for up to 1,000 steps each")
	}
	t.Parallel()
	base := uniformBitError(8)
	for _, c := range []struct {
		model string
		steps int
		bound float64
	}{
		// Measured (seeds 1, 2, 3) at step 1000: LSTM 0.065, 0.061, 0.063; Mamba 0.076, 0.173,
		// 0.171. Seed 1 stops at step 400 (LSTM 0.114, Mamba 0.157): 7 s of CPU, 19 s for
		// the whole 1000 steps. (Runs of only 500 steps, whose schedule decays sooner, end at
		// LSTM 0.290, 0.223, 0.225 and Mamba 0.343: the 1000-step schedule is kept.)
		{"lstm", 1000, 0.2},
		{"mamba", 1000, 0.35},
	} {
		t.Run(c.model, func(t *testing.T) {
			cfg := tiny(c.model)
			cfg.Steps, cfg.EvalEvery = c.steps, 100
			start := time.Now()
			res, curve := trainUntil(t, cfg, func(e *sessions.Eval) bool { return e.BitErrorPosition <= c.bound }, func(e *sessions.Eval) float64 { return e.BitErrorPosition })
			el := time.Since(start)
			s := res.Scores
			t.Logf("%s: %d steps in %v (%.1f ms/step): bit error (a) %.4f (b) %.4f KL %.4f; uniform guess (a) %.4f; (a) by step %v",
				c.model, res.Steps, el.Round(time.Millisecond), res.MedianStepMs(), s.BitErrorPosition, s.BitErrorSample, s.KLBits, base, curve)
			if s.BitErrorPosition > c.bound {
				t.Errorf("%s bit error (a) %.4f > %.2f (uniform guess %.4f)", c.model, s.BitErrorPosition, c.bound, base)
			}
		})
	}
}

// TestRecurrentQuickTunnels builds the LSTM and Mamba of the quick preset on every tunnel,
// capacity-matched to the preset's transformer within 1%, and trains each for two small
// steps through the whole lab path (evaluation, geometry snapshot, checkpoint).
func TestRecurrentQuickTunnels(t *testing.T) {
	if testing.Short() {
		t.Skip("trains six quick-preset recurrent models")
	}
	t.Parallel()
	for _, task := range []string{"bijection", "hmm", "recall"} {
		for _, model := range []string{"lstm", "mamba"} {
			t.Run(task+"/"+model, func(t *testing.T) {
				cfg, err := runconfig.Preset(runconfig.PresetQuick, task)
				if err != nil {
					t.Fatal(err)
				}
				cfg = cfg.ForModel(model)
				cfg.Steps, cfg.Batch, cfg.EvalEvery, cfg.ProbeSize, cfg.GeometryN = 2, 8, 2, 32, 16
				tr, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				// The transformer with the same position table (hmm: sized for K=50).
				want := models.TransformerParams(cfg.Transformer, tr.Tunnel(), tr.maxLen)
				got := tr.Model().NumParams()
				if e := math.Abs(float64(got-want)) / float64(want); e > 0.01 {
					t.Errorf("%s has %d parameters, %.2f%% from the transformer's %d", model, got, 100*e, want)
				}
				if tr.Model().Kind() != model {
					t.Errorf("model kind %q, want %q", tr.Model().Kind(), model)
				}
				res, err := tr.Run(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if res.Steps != 2 || math.IsNaN(res.Scores.KLBits) {
					t.Errorf("run: %d steps, KL %v", res.Steps, res.Scores.KLBits)
				}
				t.Logf("%s %s: %d parameters (transformer %d), KL %.3f bits", task, model, got, want, res.Scores.KLBits)
			})
		}
	}
	c := tiny("gru")
	err := c.Validate()
	for _, kind := range arch.Kinds() {
		if err == nil || !contains(err.Error(), kind) {
			t.Errorf("Validate(Model gru) = %v, want an error listing the models", err)
		}
	}
}

// TestRecurrentDeterministic checks that the same seed gives the same loss curve: the
// kernels' parallel sums are taken in a fixed order.
func TestRecurrentDeterministic(t *testing.T) {
	for _, model := range []string{"lstm", "mamba"} {
		c := tiny(model)
		c.Steps, c.EvalEvery, c.Workers = 15, 15, 2
		a, b := lossCurve(t, c), lossCurve(t, c)
		if len(a) != c.Steps || len(b) != c.Steps {
			t.Fatalf("%s: got %d and %d losses, want %d", model, len(a), len(b), c.Steps)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s step %d: loss %v vs %v", model, i+1, a[i], b[i])
			}
		}
	}
}
