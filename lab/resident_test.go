package lab

import (
	"context"
	"math"
	"os"
	"testing"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/backends/cuda"
	"windtunnel/models"
	"windtunnel/sessions"
)

// runFor trains c for its steps and returns the trainer (closed by the test's cleanup) and
// what its sinks saw.
func runFor(t *testing.T, c runconfig.Config, restore *sessions.Checkpoint) (*Trainer, *collector) {
	t.Helper()
	tr, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	if restore != nil {
		if err := tr.Restore(restore); err != nil {
			t.Fatal(err)
		}
	}
	col := &collector{}
	tr.Attach(col)
	if _, err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tr, col
}

// maxParamDiff is the largest absolute difference between two models' parameters.
func maxParamDiff(t *testing.T, a, b models.Model) float64 {
	t.Helper()
	pa, pb := a.Params(), b.Params()
	if len(pa) != len(pb) {
		t.Fatalf("%d parameters against %d", len(pa), len(pb))
	}
	worst := 0.0
	for i := range pa {
		x, y := pa[i].Value.Data().([]float32), pb[i].Value.Data().([]float32)
		for j := range x {
			worst = math.Max(worst, math.Abs(float64(x[j]-y[j])))
		}
	}
	return worst
}

// residentCfg is tiny with a few steps, a head switched off and soft targets where given.
func residentCfg(device string, steps int) runconfig.Config {
	c := tiny(arch.KindTransformer)
	c.Steps, c.EvalEvery, c.ProbeSize, c.Workers, c.Device = steps, 1000, 64, 1, device
	c.LR, c.Warmup = 1e-3, 2
	return c
}

// TestResidentHostMatchesCPU: the device-resident executor on the host device (Go kernels)
// trains as the CPU path does: after 3 steps every parameter within 1e-6, every loss within
// 1e-5.
func TestResidentHostMatchesCPU(t *testing.T) {
	cpu, cc := runFor(t, residentCfg("cpu", 3), nil)
	host, hc := runFor(t, residentCfg("host", 3), nil)
	if host.Device().Kind != "host" {
		t.Fatalf("device %+v, want the host executor", host.Device())
	}
	if d := maxParamDiff(t, cpu.Model(), host.Model()); d > 1e-6 {
		t.Errorf("parameters differ by %g after 3 steps", d)
	} else {
		t.Logf("parameters within %g after 3 steps", d)
	}
	init, err := New(residentCfg("cpu", 3))
	if err != nil {
		t.Fatal(err)
	}
	if d := maxParamDiff(t, init.Model(), host.Model()); d < 1e-4 {
		t.Errorf("3 resident steps moved the parameters by only %g", d)
	}
	var n int
	for i, r := range cc.records {
		if r.Loss == 0 || i >= len(hc.records) {
			continue
		}
		n++
		if h := hc.records[i]; math.Abs(h.Loss-r.Loss) > 1e-5 || math.Abs(h.GradNorm-r.GradNorm) > 1e-4*r.GradNorm {
			t.Errorf("step %d: loss %v, gradient norm %v on the host device; CPU %v, %v", r.Step, h.Loss, h.GradNorm, r.Loss, r.GradNorm)
		}
	}
	if n < 3 {
		t.Fatalf("compared %d steps, want 3", n)
	}
}

// TestResidentResume: a resident run resumed from its step-3 checkpoint (parameters and AdamW
// moments pushed back to the device) ends where the uninterrupted run ends.
func TestResidentResume(t *testing.T) {
	c := residentCfg("host", 6)
	c.CheckpointEvery = 3
	whole, col := runFor(t, c, nil)
	var at3 *sessions.Checkpoint
	for _, k := range col.checkpoints {
		if k.Step == 3 {
			at3 = k
		}
	}
	if at3 == nil || at3.M == nil {
		t.Fatalf("no step-3 checkpoint with optimiser state among %d", len(col.checkpoints))
	}
	resumed, _ := runFor(t, c, at3)
	if d := maxParamDiff(t, whole.Model(), resumed.Model()); d > 1e-7 {
		t.Errorf("resumed run's parameters differ by %g", d)
	}
}

// TestResidentNeedsTransformer: the host executor refuses a model with ops it has no device
// version of, naming the op, instead of running them on the CPU.
func TestResidentNeedsTransformer(t *testing.T) {
	c := residentCfg("host", 3)
	c = c.ForModel(arch.KindLSTM)
	if _, err := New(c); err == nil {
		t.Fatal("an LSTM on the resident executor: no error")
	}
}

// TestResidentCUDAMatchesCPU: 20 steps of the paper preset with the whole step on the GPU, and
// with only the products there (cuda-gemm), end within 1e-4 of the CPU path (same seed). Needs
// a GPU: skipped without one unless WINDTUNNEL_REQUIRE_GPU=1 (scripts/gpu-check.sh sets it).
func TestResidentCUDAMatchesCPU(t *testing.T) {
	// Whether there is a GPU at all is asked first: building the paper model takes seconds.
	if _, err := cuda.Probe(); err != nil {
		if os.Getenv("WINDTUNNEL_REQUIRE_GPU") == "1" {
			t.Fatalf("WINDTUNNEL_REQUIRE_GPU=1: %v", err)
		}
		t.Skipf("no GPU: %v", err)
	}
	c, err := runconfig.Preset(runconfig.PresetPaper, "bijection")
	if err != nil {
		t.Fatal(err)
	}
	c.Steps, c.EvalEvery, c.ProbeSize, c.CheckpointEvery = 20, 1000, 256, 0
	c.Device = "cuda"
	tr, err := New(c)
	if err != nil {
		if os.Getenv("WINDTUNNEL_REQUIRE_GPU") == "1" {
			t.Fatalf("WINDTUNNEL_REQUIRE_GPU=1: %v", err)
		}
		t.Skipf("no GPU: %v", err)
	}
	_ = tr.Close()
	c.Device = "cpu"
	cpu, cc := runFor(t, c, nil)
	for _, dev := range []string{"cuda", "cuda-gemm"} {
		c.Device = dev
		gpu, gc := runFor(t, c, nil)
		d := maxParamDiff(t, cpu.Model(), gpu.Model())
		t.Logf("%s (%s): max parameter difference after 20 paper steps %g; last loss %v, CPU %v",
			dev, gpu.Device().Name, d, gc.records[len(gc.records)-1].Loss, cc.records[len(cc.records)-1].Loss)
		if d > 1e-4 {
			t.Errorf("%s: parameters differ by %g after 20 steps, want ≤ 1e-4", dev, d)
		}
	}
}
