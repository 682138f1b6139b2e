package cuda

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"windtunnel/backends/gemm"
)

// DefaultThreshold is a suggested Options.Threshold in multiply-adds (m·n·k, about 128³): smaller
// products cost less on the CPU than the copies and launch latency of the GPU. Measure on the target.
const DefaultThreshold = 1 << 21

// Options configures Open.
type Options struct {
	// Threshold is the smallest m·n·k sent to the GPU; smaller products run on CPU.
	// Zero or negative sends every product to the GPU (see DefaultThreshold).
	Threshold int
	// CPU computes the products below Threshold, those whose sizes do not fit cuBLAS's 32-bit
	// integers, and every product after a GPU error or Close. Nil means gemm.Gonum().
	CPU gemm.Backend
	// Device is the ordinal of the GPU to use, as the driver numbers them (after CUDA_VISIBLE_DEVICES).
	Device int
}

// DeviceInfo describes an opened GPU and the libraries used to drive it.
type DeviceInfo struct {
	Name        string // e.g. "NVIDIA H100 80GB HBM3"
	Driver      string // CUDA version the driver supports, e.g. "13.0"
	MemoryBytes int64  // total device memory
	CUBLAS      string // cuBLAS version, e.g. "13.1.0"
	Device      int    // ordinal of the device
	DriverLib   string // driver library as loaded, e.g. "libcuda.so.1"
	CUBLASLib   string // cuBLAS library as loaded
}

// String formats the device on one line, e.g. "NVIDIA H100 80GB HBM3 (device 0, 79.2 GiB, driver 13.0, cuBLAS 13.1.0)".
func (i DeviceInfo) String() string {
	s := fmt.Sprintf("%s (device %d, %.1f GiB, driver %s", i.Name, i.Device, float64(i.MemoryBytes)/(1<<30), i.Driver)
	if i.CUBLAS != "" {
		s += ", cuBLAS " + i.CUBLAS
	}
	return s + ")"
}

// Stats counts a Backend's work since Open or the last Reset.
type Stats struct {
	GPUCalls        int64         // products computed on the GPU
	CPUCalls        int64         // products handed to the CPU backend
	GPUTime         time.Duration // wall time inside GPU work, copies included
	BytesToDevice   int64         // bytes copied host to device, resident uploads included
	BytesFromDevice int64         // bytes copied device to host
	ResidentUploads int64         // uploads of resident slices
	ResidentHits    int64         // operands served from a valid resident copy
}

// Backend is a gemm.Backend that computes large products with cuBLAS on an NVIDIA
// GPU and the rest with a CPU backend. It is safe for concurrent use; GPU work is
// serialised (see the package documentation).
type Backend struct {
	dev       device
	info      DeviceInfo
	cpu       gemm.Backend
	threshold int
	name      string

	off atomic.Bool // set by Close and by a GPU error: every product then runs on the CPU

	// Counters, read without the lock.
	gpuCalls, cpuCalls, gpuNanos, bytesTo, bytesFrom, residentUploads, residentHits atomic.Int64

	mu       sync.Mutex // serialises device work and guards the fields below
	err      error      // the error that turned the GPU off
	closed   bool
	bufs     [3]devBuf      // pooled device buffers for A, B and C
	stage    []float64      // host staging for a C whose rows are not contiguous
	resident []*residentBuf // slices registered with Resident
	// Host scalars whose addresses are passed to cuBLAS.
	alpha32, beta32 float32
	alpha64, beta64 float64
}

// Buffer slots.
const (
	slotA = iota
	slotB
	slotC
)

// devBuf is a grow-only device allocation reused across calls.
type devBuf struct {
	ptr  devPtr
	size uintptr
}

// residentBuf is a host slice whose device copy is reused until Invalidate.
type residentBuf struct {
	host       []float32 // keeps the slice (and so its address) alive
	start, end uintptr   // host address range
	dev        devPtr    // device copy, 0 before the first upload
	valid      bool      // the device copy matches the host slice
}

// Open loads the CUDA driver and cuBLAS, opens device opts.Device and returns a Backend.
// The error wraps ErrNoDriver, ErrNoDevice or ErrNoCUBLAS when that part is missing.
func Open(opts Options) (*Backend, error) {
	g, info, err := openGPU(opts.Device)
	if err != nil {
		return nil, err
	}
	return newBackend(g, info, opts), nil
}

// Probe opens device 0, returns its description and closes it again. On error the
// description holds what was learned before the failure.
func Probe() (DeviceInfo, error) {
	g, info, err := openGPU(0)
	if err != nil {
		return info, err
	}
	return info, newBackend(g, info, Options{}).Close()
}

// newBackend wraps an opened device.
func newBackend(dev device, info DeviceInfo, opts Options) *Backend {
	cpu := opts.CPU
	if cpu == nil {
		cpu = gemm.Gonum()
	}
	return &Backend{
		dev:       dev,
		info:      info,
		cpu:       cpu,
		threshold: opts.Threshold,
		name:      fmt.Sprintf("cuda: %s (driver %s, cuBLAS %s)", info.Name, info.Driver, info.CUBLAS),
	}
}

// Name describes the device, e.g. "cuda: NVIDIA H100 80GB HBM3 (driver 13.0, cuBLAS 13.1.0)".
func (b *Backend) Name() string { return b.name }

// Info describes the device and the libraries loaded.
func (b *Backend) Info() DeviceInfo { return b.info }

// CPU returns the backend that computes the products not sent to the GPU.
func (b *Backend) CPU() gemm.Backend { return b.cpu }

// Err returns the GPU error that made every later product run on the CPU, or nil.
func (b *Backend) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// GPUTime returns the wall time spent in GPU work (copies included) since Open or the last Reset.
func (b *Backend) GPUTime() time.Duration { return time.Duration(b.gpuNanos.Load()) }

// Stats returns the counters since Open or the last Reset.
func (b *Backend) Stats() Stats {
	return Stats{
		GPUCalls:        b.gpuCalls.Load(),
		CPUCalls:        b.cpuCalls.Load(),
		GPUTime:         time.Duration(b.gpuNanos.Load()),
		BytesToDevice:   b.bytesTo.Load(),
		BytesFromDevice: b.bytesFrom.Load(),
		ResidentUploads: b.residentUploads.Load(),
		ResidentHits:    b.residentHits.Load(),
	}
}

// Reset zeroes the GPU time and the other counters of Stats.
func (b *Backend) Reset() {
	for _, c := range []*atomic.Int64{&b.gpuCalls, &b.cpuCalls, &b.gpuNanos, &b.bytesTo, &b.bytesFrom, &b.residentUploads, &b.residentHits} {
		c.Store(0)
	}
}

// Resident registers s (typically a weight) so that, when a product reads it (or a
// part of it) as A or B, its device copy is uploaded once and reused until
// Invalidate. The caller must call Invalidate after any write to s; the Backend
// keeps s alive until ClearResident or Close. Registering the same slice again is a no-op.
func (b *Backend) Resident(s []float32) {
	if len(s) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.resident {
		if r.start == start && len(r.host) == len(s) {
			return
		}
	}
	b.resident = append(b.resident, &residentBuf{host: s, start: start, end: start + uintptr(len(s))*4})
}

// Invalidate marks every resident device copy stale: each is uploaded again at its next use.
// Call it after the resident slices change (after each optimiser update).
func (b *Backend) Invalidate() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.resident {
		r.valid = false
	}
}

// ClearResident forgets every slice registered with Resident and frees their device copies.
func (b *Backend) ClearResident() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.clearResidentLocked()
}

func (b *Backend) clearResidentLocked() error {
	var errs []error
	if !b.closed && b.anyResidentAllocated() {
		if err := b.dev.bind(); err != nil {
			return fmt.Errorf("cuda: free resident copies: %w", err)
		}
		defer b.dev.unbind()
		for _, r := range b.resident {
			if r.dev != 0 {
				errs = append(errs, b.dev.free(r.dev))
			}
		}
	}
	b.resident = nil
	return errors.Join(errs...)
}

func (b *Backend) anyResidentAllocated() bool {
	for _, r := range b.resident {
		if r.dev != 0 {
			return true
		}
	}
	return false
}

// Close frees the device memory, destroys the cuBLAS handle and releases the device.
// Products after Close run on the CPU backend. Closing twice is a no-op.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.off.Store(true)
	if err := b.dev.bind(); err != nil {
		b.closed = true
		return fmt.Errorf("cuda: close: %w", err)
	}
	defer b.dev.unbind()
	var errs []error
	for i := range b.bufs {
		if b.bufs[i].ptr != 0 {
			errs = append(errs, b.dev.free(b.bufs[i].ptr))
		}
		b.bufs[i] = devBuf{}
	}
	for _, r := range b.resident {
		if r.dev != 0 {
			errs = append(errs, b.dev.free(r.dev))
		}
	}
	b.resident = nil
	errs = append(errs, b.dev.close())
	b.closed = true
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cuda: close: %w", err)
	}
	return nil
}
