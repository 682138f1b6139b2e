package lab

import (
	"testing"
	"time"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/tunnels"
)

// TestTinyRecallLearns trains a 2-layer transformer on a tiny associative recall (N=2 pairs
// of 8 keys and 8 values in the `k v` layout, both keys queried): it must get past the
// plateau where it knows which values are stored but not which key each belongs to
// (accuracy 0.5) to accuracy ≥ 0.9. Recall is learned abruptly after a plateau whose length
// depends on the seed; at width 32 half the seeds tried stayed on it for 3000 steps, at width
// 64 seeds 2–4 left it by 800–1500 steps (OpenBLAS) and seed 1 had not at 1500 (gonum). The
// run is pure Go (gonum, fixed workers), so its trajectory is the same on every machine.
func TestTinyRecallLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for about a minute (57 s of CPU measured)")
	}
	cfg := runconfig.Config{
		Task: "recall", Tunnel: tunnels.Config{Pairs: 2, Keys: 8, Values: 8, Fillers: 1, Queries: 2, Layout: tunnels.RecallLayoutPairs},
		Model:       arch.KindTransformer,
		Transformer: arch.TransformerConfig{Layers: 2, Heads: 4, Width: 64},
		Steps:       1500, Batch: 32, LR: 1e-3, Warmup: 40, WeightDecay: 0.01, Clip: 1,
		ValueLR: 1, QKLR: 1, EvalEvery: 100, ProbeSize: 256, Seed: 3, BLAS: "gonum", Workers: 2,
	}
	start := time.Now()
	res := train(t, cfg)
	s := res.Scores
	t.Logf("recall N=2: %d steps in %v: accuracy %.3f, bit error (a) %.4f", res.Steps, time.Since(start).Round(time.Millisecond), s.Accuracy, s.BitErrorPosition)
	if s.Accuracy < 0.9 {
		t.Errorf("accuracy %.3f < 0.9 after %d steps (the plateau is 0.5)", s.Accuracy, res.Steps)
	}
}
