package lab

import (
	"context"
	"testing"

	"windtunnel/models/arch"
)

// TestSoftTargetsAndExactGELUTrain: the tiny bijection transformer trains on the exact
// posterior as a soft target (--target posterior) and with the exact GELU (--gelu erf): 300
// steps take bit error (b) from its first evaluation's to under 0.7 of it (measured 0.52–0.56: past the plateau where only the seen values are known), as sampled
// targets and the tanh GELU do.
func TestSoftTargetsAndExactGELUTrain(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four tiny runs")
	}
	t.Parallel()
	for _, c := range []struct{ target, gelu string }{
		{"sampled", arch.GELUTanh}, {"posterior", arch.GELUTanh}, {"sampled", arch.GELUErf}, {"posterior", arch.GELUErf},
	} {
		t.Run(c.target+"/"+c.gelu, func(t *testing.T) {
			cfg := tiny("transformer")
			cfg.Steps, cfg.EvalEvery, cfg.ProbeEvery, cfg.Target, cfg.GELU = 300, 25, 0, c.target, c.gelu
			col := &collector{}
			tr, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			tr.Attach(col)
			res, err := tr.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			first := -1.0
			for _, r := range col.records {
				if r.Eval != nil {
					first = r.Eval.BitErrorSample
					break
				}
			}
			t.Logf("bit error (b) %.6f at the first evaluation, %.6f after %d steps", first, res.Scores.BitErrorSample, cfg.Steps)
			if !(res.Scores.BitErrorSample < 0.7*first) {
				t.Errorf("bit error (b) %.4f after %d steps, want < 0.7 × the first evaluation's %.4f", res.Scores.BitErrorSample, cfg.Steps, first)
			}
		})
	}
}
