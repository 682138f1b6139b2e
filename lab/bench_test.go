package lab

import (
	"context"
	"errors"
	"path/filepath"
	"time"
	"windtunnel/sessions/runconfig"

	"fmt"
	"testing"
	"windtunnel/backends/gemm"
	"windtunnel/models/arch"
	"windtunnel/sessions"

	"windtunnel/tunnels"
)

// BenchmarkTrainStep times one training step (fresh batch, forward, backward, AdamW) of the
// preset configurations, with allocations per step, on the go backend and on OpenBLAS (the
// transformers), one after the other; the go transformers in both GELU forms too (the
// preset's, and the other one named: quick's tanh, paper's erf); the quick Mamba of each
// primitives task and the quick hmm LSTM on one worker.
func BenchmarkTrainStep(b *testing.B) {
	for _, c := range []struct{ preset, task, model, blas, gelu string }{
		{runconfig.PresetQuick, "bijection", "transformer", "go", ""},
		{runconfig.PresetQuick, "bijection", "transformer", "go", arch.GELUErf},
		{runconfig.PresetQuick, "bijection", "transformer", "openblas", ""},
		{runconfig.PresetQuick, "bijection", "mlp", "go", ""},
		{runconfig.PresetQuick, "hmm", "transformer", "go", ""},
		{runconfig.PresetQuick, "bijection", "mamba", "go", ""},
		{runconfig.PresetQuick, "hmm", "mamba", "go", ""},
		{runconfig.PresetQuick, "recall", "mamba", "go", ""},
		{runconfig.PresetQuick, "hmm", "lstm", "go", ""},
		{runconfig.PresetPaper, "bijection", "transformer", "go", ""},
		{runconfig.PresetPaper, "bijection", "transformer", "go", arch.GELUTanh},
		{runconfig.PresetPaper, "bijection", "transformer", "openblas", ""},
	} {
		name := fmt.Sprintf("%s/%s/%s/%s", c.preset, c.task, c.model, c.blas)
		if c.gelu != "" {
			name += "/" + c.gelu
		}
		b.Run(name, func(b *testing.B) {
			cfg, err := runconfig.Preset(c.preset, c.task)
			if err != nil {
				b.Fatal(err)
			}
			cfg = cfg.ForModel(c.model)
			cfg.ProbeSize, cfg.BLAS = 1, c.blas
			if c.model == "mamba" || c.model == "lstm" {
				cfg.Workers = 1 // as primitives trains it: two runs at once on two cores
			}
			if c.gelu != "" {
				cfg.GELU = c.gelu
			}
			tr, err := New(cfg)
			if errors.Is(err, gemm.ErrNotLoaded) {
				b.Skipf("OpenBLAS absent: %v", err)
			}
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
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				step(i + 1)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/step")
			// CPU time of all threads: on a shared machine it varies less with the load.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/step")
		})
	}
}

// BenchmarkRecording runs the quick bijection preset for 500 steps (evaluation and
// snapshot every 250, checkpoint every 250) without and with a session writer attached,
// alternating, and reports the wall time per step of each; the difference is what
// recording costs the trainer. -benchtime 1x is enough (each iteration is a whole run).
func BenchmarkRecording(b *testing.B) {
	cfg, err := runconfig.Preset(runconfig.PresetQuick, "bijection")
	if err != nil {
		b.Fatal(err)
	}
	cfg.Steps, cfg.EvalEvery, cfg.CheckpointEvery = 500, 250, 250
	wall := map[bool]float64{}
	for i := 0; i < b.N; i++ {
		for _, rec := range []bool{false, true, false, true} {
			tr, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			var w *sessions.Writer
			if rec {
				w, err = sessions.Create(filepath.Join(b.TempDir(), "r.wtlab"), sessions.Meta{Task: cfg.Task}, sessions.WriterOptions{})
				if err != nil {
					b.Fatal(err)
				}
				tr.Attach(w)
			}
			t0 := time.Now()
			if _, err := tr.Run(context.Background()); err != nil {
				b.Fatal(err)
			}
			wall[rec] += time.Since(t0).Seconds()
			if w != nil {
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	steps := float64(2 * b.N * cfg.Steps)
	b.ReportMetric(1000*wall[false]/steps, "ms/step-off")
	b.ReportMetric(1000*wall[true]/steps, "ms/step-on")
	b.ReportMetric(100*(wall[true]/wall[false]-1), "%cost")
}

// BenchmarkEvaluation times one evaluation of the quick presets' probe sets (with the hmm
// run's other lengths) in passes of at most probeChunk sequences ("256", the passes before
// chunking by memory) and of the chunk each evaluation budget gives, and reports the
// chunk at the training length.
func BenchmarkEvaluation(b *testing.B) {
	for _, task := range []string{"bijection", "hmm"} {
		cfg, err := runconfig.Preset(runconfig.PresetQuick, task)
		if err != nil {
			b.Fatal(err)
		}
		tr, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		for _, budget := range []struct {
			name  string
			bytes int64
		}{{"256", 1 << 40}, {"24MB", 24 << 20}, {"12MB", 12 << 20}, {"6MB", 6 << 20}} {
			b.Run(task+"/"+budget.name, func(b *testing.B) {
				if err := tr.setupProbes(budget.bytes); err != nil {
					b.Fatal(err)
				}
				eval := func() {
					s, _, err := tr.evaluate(false, true)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := tr.EvaluateLengths(s); err != nil {
						b.Fatal(err)
					}
				}
				eval() // compile the graphs
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					eval()
				}
				b.ReportMetric(float64(tr.chunk), "seqs/pass")
			})
		}
	}
}
