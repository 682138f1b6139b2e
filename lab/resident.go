package lab

import (
	"fmt"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/backends/accel"
	"windtunnel/backends/cuda"
	"windtunnel/backends/gemm"
	"windtunnel/models"
	"windtunnel/tunnels"
)

// residentWanted reports whether cfg runs the resident step: device cuda or host, a
// float32 transformer (other models keep the matrix-products-only path on cuda).
func residentWanted(cfg runconfig.Config) bool {
	if cfg.Device != "cuda" && cfg.Device != "host" {
		return false
	}
	return cfg.Model == arch.KindTransformer && cfg.Precision != "float64"
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
	adam, ok := t.opt.(*AdamW)
	if !ok {
		return &DeviceError{Device: cfg.Device, Err: fmt.Errorf("the resident step runs AdamW, not --optimizer %s", cfg.Optimizer)}
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
	o := models.ResidentOptions{Beta1: adam.Beta1, Beta2: adam.Beta2, Eps: adam.Eps, Decay: adam.Decay, Clip: adam.Clip, GroupLR: adam.GroupLR}
	r, err := models.NewResident(t.model, t.tunnel, cfg.Batch, dev, o)
	if err != nil {
		_ = dev.Close()
		return &DeviceError{Device: cfg.Device, Err: err}
	}
	t.path = &residentPath{r: r, dev: dev, gpu: cfg.Device == "cuda"}
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
	if !t.path.overlapped() || t.step+1 >= t.cfg.Steps {
		return t.path.step(r.batch, t.mode)
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
	loss, err := t.path.step(r.batch, t.mode)
	<-done
	r.nextAt = t.step + 1
	return loss, err
}

// current returns the model with its host parameters up to date with the device: every
// reader of parameters (evaluation, geometry, checkpoints) goes through it.
func (t *Trainer) current() (models.Model, error) {
	if err := t.path.sync(); err != nil {
		return nil, err
	}
	return t.model, nil
}

// Current returns the model with its parameters up to date (pulled from the device when
// the step is resident there). Model gives the same model for its description (kind, size,
// heads) without the pull.
func (t *Trainer) Current() (models.Model, error) { return t.current() }
