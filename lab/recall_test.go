package lab

import (
	"testing"
	"time"
	"windtunnel/models/arch"
	"windtunnel/sessions"
	"windtunnel/sessions/runconfig"

	"windtunnel/tunnels"
)

// TestTinyRecallLearns trains a 2-layer transformer on a tiny associative recall (N=2 pairs
// of 8 keys and 8 values in the `k v` layout, both keys queried): within its budget of 1500
// steps it must get past the plateau where it knows which values are stored but not which key
// each belongs to (accuracy 0.5) to accuracy ≥ 0.9. The run stops at the first evaluation
// (every 100 steps) at ≥ 0.9 and the final evaluation of the stopped model is the one held
// to the bound: the schedule is still the 1500-step one, only the steps after the plateau is
// left are saved. Recall is learned abruptly after a plateau whose length depends on the
// seed; at width 32 half the seeds tried stayed on it for 3000 steps (and seed 3 at lr 3e-3
// for 1500), at width 64 seeds 2–4 left it by 800–1500 steps (OpenBLAS) and seed 1 had not
// at 1500 (gonum), nor had seeds 5 and 6 at 1000; lr 3e-3 at width 64 kept seeds 3 and 4 on
// it past step 1000. Seed 3 (gonum) reads 0.547 at step 700, 0.764 at 800 and 0.945 at 900,
// where it stops: 38–42 s of CPU instead of 57. The run is pure Go (gonum, fixed workers), so
// its trajectory is the same on every machine.
func TestTinyRecallLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for 900 steps (38–42 s of CPU measured)")
	}
	const target = 0.9
	cfg := runconfig.Config{
		Task: "recall", Tunnel: tunnels.Config{Pairs: 2, Keys: 8, Values: 8, Fillers: 1, Queries: 2, Layout: tunnels.RecallLayoutPairs},
		Model:       arch.KindTransformer,
		Transformer: arch.TransformerConfig{Layers: 2, Heads: 4, Width: 64},
		Steps:       1500, Batch: 32, LR: 1e-3, Warmup: 40, WeightDecay: 0.01, Clip: 1,
		ValueLR: 1, QKLR: 1, EvalEvery: 100, ProbeSize: 256, Seed: 3, BLAS: "gonum", Workers: 2,
	}
	start := time.Now()
	res, curve := trainUntil(t, cfg, func(e *sessions.Eval) bool { return e.Accuracy >= target }, func(e *sessions.Eval) float64 { return e.Accuracy })
	s := res.Scores
	t.Logf("recall N=2: %d steps in %v: accuracy %.3f, bit error (a) %.4f; accuracy by step %v", res.Steps, time.Since(start).Round(time.Millisecond), s.Accuracy, s.BitErrorPosition, curve)
	if s.Accuracy < target {
		t.Errorf("accuracy %.3f < %.1f after %d steps (the plateau is 0.5)", s.Accuracy, target, res.Steps)
	}
}
