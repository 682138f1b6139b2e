package lab

import (
	"errors"
	"fmt"

	"windtunnel/backends/accel"
	"windtunnel/backends/cuda"
	"windtunnel/backends/gemm"
	"windtunnel/models"
	"windtunnel/tunnels"
)

// residentStep is a run's device-resident training step: the executor, its device and
// whether the host's parameter copies are behind the device's.
type residentStep struct {
	r     *models.Resident
	dev   accel.Device
	stale bool
	err   error // a failed pull outside a step (a checkpoint), returned by the next step
}

func (s *residentStep) close() error {
	return errors.Join(s.r.Close(), s.dev.Close())
}

// residentWanted reports whether cfg runs the resident step: device cuda or host, a
// float32 transformer (other models keep the matrix-products-only path on cuda).
func residentWanted(cfg Config) bool {
	if cfg.Device != "cuda" && cfg.Device != "host" {
		return false
	}
	return cfg.Model == models.KindTransformer && cfg.Precision != "float64"
}

// openResident builds the resident step when the configuration asks for it: on the GPU for
// device cuda, on the Go host device (products on cpu) for device host.
func (t *Trainer) openResident(cpu gemm.Backend) error {
	cfg := t.cfg
	if !residentWanted(cfg) {
		if cfg.Device == "host" {
			return &DeviceError{Device: cfg.Device, Err: fmt.Errorf("the resident step needs a float32 transformer, not %s at %s", cfg.Model, cmpOr(cfg.Precision, "float32"))}
		}
		return nil
	}
	var dev accel.Device
	if cfg.Device == "cuda" {
		a, err := cuda.OpenResident(0)
		if err != nil {
			return &DeviceError{Device: cfg.Device, Err: err}
		}
		in := a.Info()
		t.device = Device{Kind: "cuda", Name: in.Name,
			Driver: fmt.Sprintf("whole step on the GPU; driver %s (%s), cuBLAS %s (%s), NVRTC %s (%s)",
				in.Driver, in.DriverLib, in.CUBLAS, in.CUBLASLib, in.NVRTC, in.NVRTCLib)}
		dev = a
	} else {
		dev = accel.NewHost(cpu)
		t.device = Device{Kind: "host", Name: dev.Name()}
	}
	o := models.ResidentOptions{Beta1: t.opt.Beta1, Beta2: t.opt.Beta2, Eps: t.opt.Eps, Decay: t.opt.Decay, Clip: t.opt.Clip, GroupLR: t.opt.GroupLR}
	r, err := models.NewResident(t.model, t.tunnel, cfg.Batch, dev, o)
	if err != nil {
		_ = dev.Close()
		return &DeviceError{Device: cfg.Device, Err: err}
	}
	t.res = &residentStep{r: r, dev: dev}
	return nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// stepOn fills this step's batch and runs forward and backward on it. With the step on a
// device the next step's batch is filled meanwhile on the host (an HMM batch of 256 takes
// ~3.5 ms to draw, a third of a GPU step), into a second batch swapped in at the next step.
func (t *Trainer) stepOn(r *runState) (float64, error) {
	if r.nextAt == t.step {
		r.batch, r.next = r.next, r.batch
	} else {
		r.batch.Fill(t.tunnel, r.stream, uint64(t.step)*uint64(t.cfg.Batch))
	}
	r.nextAt = -1
	if t.res == nil || t.step+1 >= t.cfg.Steps {
		return t.forwardBackward(r.batch)
	}
	if r.next == nil {
		r.next = tunnels.NewBatch(t.tunnel, t.cfg.Batch)
	}
	done := make(chan struct{})
	next, first := r.next, uint64(t.step+1)*uint64(t.cfg.Batch)
	go func() {
		defer close(done)
		next.Fill(t.tunnel, r.stream, first)
	}()
	loss, err := t.forwardBackward(r.batch)
	<-done
	r.nextAt = t.step + 1
	return loss, err
}

// forwardBackward runs the model's forward and backward pass on b and returns the loss.
func (t *Trainer) forwardBackward(b *tunnels.Batch) (float64, error) {
	if t.res == nil {
		return t.model.TrainStep(t.tunnel, b, t.mode)
	}
	if err := t.res.err; err != nil {
		return 0, err
	}
	return t.res.r.Step(b, t.mode)
}

// update applies the optimiser at learning rate lr and returns the gradient norm.
func (t *Trainer) update(lr float64) (float64, error) {
	if t.res == nil {
		return t.opt.Step(t.model.Params(), lr), nil
	}
	t.res.stale = true
	return t.res.r.Update(lr)
}

// pull brings the host's parameters up to date with the device before they are read.
func (t *Trainer) pull() error {
	if t.res == nil || !t.res.stale {
		return nil
	}
	if err := t.res.r.Pull(); err != nil {
		return fmt.Errorf("lab: %w", err)
	}
	t.res.stale = false
	return nil
}

// optState is the optimiser's update count and moments, from the device when resident.
func (t *Trainer) optState() (int, [][]float64, [][]float64, error) {
	if t.res == nil {
		n, m, v := t.opt.State()
		return n, m, v, nil
	}
	return t.res.r.OptState()
}

// pushState sends loaded parameters and optimiser state to the device (a resume).
func (t *Trainer) pushState(step int, m, v [][]float64, withOpt bool) error {
	if t.res == nil {
		return nil
	}
	if err := t.res.r.Push(); err != nil {
		return err
	}
	t.res.stale = false
	if !withOpt {
		return nil
	}
	return t.res.r.SetOptState(step, m, v)
}
