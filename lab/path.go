package lab

import (
	"errors"
	"fmt"
	"time"

	"windtunnel/backends/accel"
	"windtunnel/backends/cuda"
	"windtunnel/models"
	"windtunnel/tunnels"
)

// computePath is where a run's training step computes, chosen once when the trainer opens
// its device: on the host (the CPU, or the CPU with its matrix products on a GPU) or
// resident on a device (the whole float32 transformer step on the GPU, or on the Go host
// device for checks). The trainer reaches the model's parameters only through
// Trainer.current, which brings the host's copies up to date first, so no reader of
// parameters can forget to.
type computePath interface {
	// step runs forward and backward on b and returns the loss.
	step(b *tunnels.Batch, mode tunnels.TargetMode) (float64, error)
	// update applies the optimiser at learning rate lr and returns the gradient norm.
	update(lr float64) (float64, error)
	// sync brings the host's parameters up to date with the device (a no-op on the host).
	sync() error
	// optState is the optimiser's update count and moments.
	optState() (int, [][]float64, [][]float64, error)
	// loaded tells the path the host's parameters (and, withOpt, the optimiser state at
	// step with moments m and v) were loaded: the device's copies must follow.
	loaded(step int, m, v [][]float64, withOpt bool) error
	// fail records an error outside a step (a failed sync for a checkpoint), returned by
	// the next step so that nothing goes on from stale parameters.
	fail(err error)
	// overlapped reports whether the next batch may be filled while a step runs.
	overlapped() bool
	// gpuTime is the GPU time used so far (0 without a GPU).
	gpuTime() time.Duration
	// usesGPU reports whether steps spend time on a GPU (for the record's GPU share).
	usesGPU() bool
	close() error
}

// hostPath steps the model on the host; gpu, when set, takes its large matrix products
// and keeps device copies of the weights, invalidated whenever they change.
type hostPath struct {
	t   *Trainer
	gpu *cuda.Backend
	err error
}

func (p *hostPath) step(b *tunnels.Batch, mode tunnels.TargetMode) (float64, error) {
	if p.err != nil {
		return 0, p.err
	}
	return p.t.model.TrainStep(p.t.tunnel, b, mode)
}

func (p *hostPath) update(lr float64) (float64, error) {
	gn := p.t.opt.Step(p.t.model.Params(), lr)
	p.invalidate()
	return gn, nil
}

func (p *hostPath) sync() error { return nil }

func (p *hostPath) optState() (int, [][]float64, [][]float64, error) {
	n, m, v := p.t.opt.State()
	return n, m, v, nil
}

func (p *hostPath) loaded(int, [][]float64, [][]float64, bool) error {
	p.invalidate() // the GPU's copies of the old weights must not serve the next product
	return nil
}

func (p *hostPath) fail(err error) { p.err = err }

func (p *hostPath) overlapped() bool { return false }

func (p *hostPath) invalidate() {
	if p.gpu != nil {
		p.gpu.Invalidate()
	}
}

func (p *hostPath) gpuTime() time.Duration {
	if p.gpu == nil {
		return 0
	}
	return p.gpu.GPUTime()
}

func (p *hostPath) usesGPU() bool { return p.gpu != nil }

// markResident marks the model's float32 parameters resident on the GPU: their device
// copies are reused by every product of a step until the optimiser changes them.
func (p *hostPath) markResident() {
	if p.gpu == nil {
		return
	}
	for _, prm := range p.t.model.Params() {
		if d, ok := prm.Value.Data().([]float32); ok {
			p.gpu.Resident(d)
		}
	}
}

func (p *hostPath) close() error {
	if p.gpu == nil {
		return nil
	}
	err := p.gpu.Close()
	p.gpu = nil
	return err
}

// residentPath is the device-resident training step: the executor, its device and whether
// the host's parameter copies are behind the device's.
type residentPath struct {
	r     *models.Resident
	dev   accel.Device
	gpu   bool
	stale bool
	err   error
}

func (p *residentPath) step(b *tunnels.Batch, mode tunnels.TargetMode) (float64, error) {
	if p.err != nil {
		return 0, p.err
	}
	return p.r.Step(b, mode)
}

func (p *residentPath) update(lr float64) (float64, error) {
	p.stale = true
	return p.r.Update(lr)
}

func (p *residentPath) sync() error {
	if !p.stale {
		return nil
	}
	if err := p.r.Pull(); err != nil {
		return fmt.Errorf("lab: %w", err)
	}
	p.stale = false
	return nil
}

func (p *residentPath) optState() (int, [][]float64, [][]float64, error) { return p.r.OptState() }

func (p *residentPath) loaded(step int, m, v [][]float64, withOpt bool) error {
	if err := p.r.Push(); err != nil {
		return err
	}
	p.stale = false
	if !withOpt {
		return nil
	}
	return p.r.SetOptState(step, m, v)
}

func (p *residentPath) fail(err error) { p.err = err }

func (p *residentPath) overlapped() bool { return true }

func (p *residentPath) gpuTime() time.Duration { return 0 }

func (p *residentPath) usesGPU() bool { return false }

func (p *residentPath) close() error { return errors.Join(p.r.Close(), p.dev.Close()) }
