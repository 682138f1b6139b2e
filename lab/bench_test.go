package lab

import (
	"fmt"
	"testing"

	"windtunnel/tunnels"
)

// BenchmarkTrainStep times one training step (fresh batch, forward, backward, AdamW) of the
// preset configurations, with allocations per step.
func BenchmarkTrainStep(b *testing.B) {
	for _, c := range []struct{ preset, task, model string }{
		{PresetQuick, "bijection", "transformer"},
		{PresetQuick, "bijection", "mlp"},
		{PresetQuick, "hmm", "transformer"},
		{PresetPaper, "bijection", "transformer"},
	} {
		b.Run(fmt.Sprintf("%s/%s/%s", c.preset, c.task, c.model), func(b *testing.B) {
			cfg, err := Preset(c.preset, c.task)
			if err != nil {
				b.Fatal(err)
			}
			cfg.Model, cfg.ProbeSize = c.model, 1
			tr, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			batch := tunnels.NewBatch(tr.tunnel, cfg.Batch)
			stream := tunnels.TrainStream(cfg.Seed)
			step := func(i int) {
				batch.Fill(tr.tunnel, stream, uint64(i*cfg.Batch))
				if _, err := tr.model.TrainStep(tr.tunnel, batch, tr.mode); err != nil {
					b.Fatal(err)
				}
				tr.opt.Step(tr.model.Params(), 1e-4)
			}
			step(0) // compile the graph and allocate the op buffers
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				step(i + 1)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/step")
		})
	}
}
