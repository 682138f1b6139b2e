package lab

import (
	"fmt"
	"windtunnel/sessions/runconfig"

	"windtunnel/backends/cuda"
	"windtunnel/backends/gemm"
)

// Device describes where a run computes, for the session and the Run pane.
type Device struct {
	// Kind is "cpu" or "cuda".
	Kind string
	// Name is the GPU's name, or the CPU thread count.
	Name string
	// Driver is the NVIDIA driver and cuBLAS versions ("" on the CPU).
	Driver string
}

// openDevice returns the matrix-product backend of cfg.Device: the CPU backend itself, or
// the GPU with the CPU backend for products below the size threshold.
func openDevice(cfg runconfig.Config, cpu gemm.Backend, workers int) (gemm.Backend, *cuda.Backend, Device, error) {
	if (cfg.Device != "cuda" && cfg.Device != "cuda-gemm") || residentWanted(cfg) {
		return cpu, nil, Device{Kind: "cpu", Name: cpuThreads(workers)}, nil
	}
	g, err := cuda.Open(cuda.Options{Threshold: cuda.DefaultThreshold, CPU: cpu})
	if err != nil {
		return nil, nil, Device{}, &DeviceError{Device: cfg.Device, Err: err}
	}
	in := g.Info()
	return g, g, Device{Kind: "cuda", Name: in.Name, Driver: fmt.Sprintf("matrix products on the GPU; driver %s (%s), cuBLAS %s (%s)",
		in.Driver, in.DriverLib, in.CUBLAS, in.CUBLASLib)}, nil
}

// DeviceError is returned by New when the configured device cannot be opened.
type DeviceError struct {
	// Device is the configured device, e.g. "cuda".
	Device string
	// Err is why it could not be opened.
	Err error
}

// Error says which device failed and why.
func (e *DeviceError) Error() string { return fmt.Sprintf("lab: device %s: %v", e.Device, e.Err) }

// Unwrap returns the cause.
func (e *DeviceError) Unwrap() error { return e.Err }

// Device reports where the run computes.
func (t *Trainer) Device() Device { return t.device }

// Close releases the GPU, if the run used one.
func (t *Trainer) Close() error {
	if t.path == nil {
		return nil
	}
	err := t.path.close()
	t.path = &hostPath{t: t} // closed: nothing left to release
	return err
}

// cpuThreads names the CPU device by its worker count: "1 CPU thread", "8 CPU threads".
func cpuThreads(workers int) string {
	if workers == 1 {
		return "1 CPU thread"
	}
	return fmt.Sprintf("%d CPU threads", workers)
}
