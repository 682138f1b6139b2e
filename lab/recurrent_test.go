package lab

import (
	"math"
	"testing"
	"time"
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
// tiny transformer's task) for a short budget: each must end well below the bit error of a
// uniform guess.
func TestTinyRecurrentLearns(t *testing.T) {
	base := uniformBitError(8)
	for _, c := range []struct {
		model string
		steps int
		bound float64
	}{
		{"lstm", 600, 0.25},
		{"mamba", 600, 0.25},
	} {
		t.Run(c.model, func(t *testing.T) {
			cfg := tiny(c.model)
			cfg.Steps, cfg.EvalEvery = c.steps, c.steps
			start := time.Now()
			res := train(t, cfg)
			el := time.Since(start)
			s := res.Scores
			t.Logf("%s: %d steps in %v (%.1f ms/step): bit error (a) %.4f (b) %.4f KL %.4f; uniform guess (a) %.4f",
				c.model, res.Steps, el.Round(time.Millisecond), res.MedianStepMs(), s.BitErrorPosition, s.BitErrorSample, s.KLBits, base)
			if s.BitErrorPosition > c.bound {
				t.Errorf("%s bit error (a) %.4f > %.2f (uniform guess %.4f)", c.model, s.BitErrorPosition, c.bound, base)
			}
		})
	}
}
