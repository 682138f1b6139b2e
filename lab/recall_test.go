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
// of 4 keys and 4 values in the `k v` layout, both keys queried): within its budget of 1500
// steps it must get past the plateau where it knows which values are stored but not which key
// each belongs to (accuracy 0.5) to accuracy ≥ 0.9. The run stops at the first evaluation
// (every 100 steps) at ≥ 0.9 and the final evaluation of the stopped model is the one held
// to the bound: the schedule is still the 1500-step one, only the steps after the plateau is
// left are saved. Recall is learned abruptly after a plateau whose length depends on the
// seed and the sizes: with 8 keys and 8 values seed 3 (gonum, lr 1e-3, width 64) read 0.547
// at step 700, 0.764 at 800 and 0.945 at 900 (38–42 s of CPU); at width 32 half the seeds
// tried stayed on the plateau for 3000 steps, and lr 2e-3 kept seeds 2 and 3 on it past step
// 700. With 4 keys and 4 values, one worker, seed 3 reads 0.488 at step 100, 0.498 at 200,
// 0.723 at 300 and 1.000 at 400 with gonum's GEMM (18 s of CPU), and 0.488, 0.498, 0.719 and
// 1.000 with the project's own ("go", 3 s of CPU), which the test uses; seeds 1, 2 and 4 stop
// at step 300 with it. The go backend's products do not depend on the worker count and are
// the same on every CPU with AVX2 and FMA (with AVX-512 too); elsewhere its portable kernel
// rounds differently, a trajectory the seeds' margin covers.
func TestTinyRecallLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for 400 steps")
	}
	t.Parallel()
	const target = 0.9
	cfg := runconfig.Config{
		Task: "recall", Tunnel: tunnels.Config{Pairs: 2, Keys: 4, Values: 4, Fillers: 1, Queries: 2, Layout: tunnels.RecallLayoutPairs},
		Model:       arch.KindTransformer,
		Transformer: arch.TransformerConfig{Layers: 2, Heads: 4, Width: 64},
		Steps:       1500, Batch: 32, LR: 1e-3, Warmup: 40, WeightDecay: 0.01, Clip: 1,
		ValueLR: 1, QKLR: 1, EvalEvery: 100, ProbeSize: 256, Seed: 3, BLAS: "go", Workers: 1,
	}
	start := time.Now()
	res, curve := trainUntil(t, cfg, func(e *sessions.Eval) bool { return e.Accuracy >= target }, func(e *sessions.Eval) float64 { return e.Accuracy })
	s := res.Scores
	t.Logf("recall N=2: %d steps in %v: accuracy %.3f, bit error (a) %.4f; accuracy by step %v", res.Steps, time.Since(start).Round(time.Millisecond), s.Accuracy, s.BitErrorPosition, curve)
	if s.Accuracy < target {
		t.Errorf("accuracy %.3f < %.1f after %d steps (the plateau is 0.5)", s.Accuracy, target, res.Steps)
	}
}
