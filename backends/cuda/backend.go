package cuda

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/blas"

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

// device is the handful of operations the Backend needs from a GPU: gpu is the
// CUDA one, tests use a fake that keeps "device memory" in host buffers.
type device interface {
	// bind makes the device usable from the calling goroutine until unbind.
	bind() error
	unbind()
	alloc(bytes uintptr) (devPtr, error)
	free(p devPtr) error
	htod(dst devPtr, src unsafe.Pointer, bytes uintptr) error
	dtoh(dst unsafe.Pointer, src devPtr, bytes uintptr) error
	// gemm runs the column-major call c on device matrices x (first), y (second)
	// and out; alpha and beta point to host float32s when single, else float64s.
	gemm(single bool, c call, alpha unsafe.Pointer, x, y devPtr, beta unsafe.Pointer, out devPtr) error
	// close releases the device; called once, bound, after every buffer is freed.
	close() error
}

// gpu is a CUDA device driven through the driver API and cuBLAS.
type gpu struct {
	drv    *driver
	blas   *cublasLib
	dev    int32   // CUdevice
	ctx    uintptr // the device's primary CUcontext
	handle uintptr // cublasHandle_t created on ctx
}

// bind locks the calling goroutine to its OS thread, where CUDA keeps the
// current context, and makes the device's context current there.
func (g *gpu) bind() error {
	runtime.LockOSThread()
	if err := g.drv.setCurrent(g.ctx); err != nil {
		runtime.UnlockOSThread()
		return err
	}
	return nil
}

func (g *gpu) unbind() { runtime.UnlockOSThread() }

func (g *gpu) alloc(bytes uintptr) (devPtr, error) { return g.drv.memAlloc(bytes) }
func (g *gpu) free(p devPtr) error                 { return g.drv.memFree(p) }
func (g *gpu) htod(dst devPtr, src unsafe.Pointer, bytes uintptr) error {
	return g.drv.htod(dst, src, bytes)
}
func (g *gpu) dtoh(dst unsafe.Pointer, src devPtr, bytes uintptr) error {
	return g.drv.dtoh(dst, src, bytes)
}
func (g *gpu) gemm(single bool, c call, alpha unsafe.Pointer, x, y devPtr, beta unsafe.Pointer, out devPtr) error {
	return g.blas.gemm(g.handle, single, c, alpha, x, y, beta, out)
}

func (g *gpu) close() error {
	return errors.Join(
		g.drv.synchronize(),
		g.blas.destroyHandle(g.handle),
		g.drv.primaryCtxRelease(g.dev),
	)
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

// openGPU loads the libraries, retains the primary context of device ordinal
// and creates a cuBLAS handle on it. info is filled as far as it got.
func openGPU(ordinal int) (g *gpu, info DeviceInfo, err error) {
	info.Device = ordinal
	drv, err := loadDriver(DriverCandidates())
	if err != nil {
		return nil, info, err
	}
	info.DriverLib = drv.path
	if err := drv.init(); err != nil {
		return nil, info, fmt.Errorf("%w: %w", err, ErrNoDevice)
	}
	v, err := drv.version()
	if err != nil {
		return nil, info, fmt.Errorf("%w: %w", err, ErrNoDevice)
	}
	info.Driver = driverVersionString(v)
	n, err := drv.deviceCount()
	if err != nil {
		return nil, info, fmt.Errorf("%w: %w", err, ErrNoDevice)
	}
	if ordinal < 0 || ordinal >= n {
		return nil, info, fmt.Errorf("cuda: device %d requested, driver %s (%s) reports %d: %w",
			ordinal, info.Driver, drv.path, n, ErrNoDevice)
	}
	dev, err := drv.device(ordinal)
	if err != nil {
		return nil, info, fmt.Errorf("%w: %w", err, ErrNoDevice)
	}
	if info.Name, err = drv.deviceName(dev); err != nil {
		return nil, info, err
	}
	if info.MemoryBytes, err = drv.totalMem(dev); err != nil {
		return nil, info, err
	}

	// The context is current per OS thread: keep this goroutine on one
	// thread while the context is made current and the handle created.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, err := drv.primaryCtxRetain(dev)
	if err != nil {
		return nil, info, fmt.Errorf("%w: %w", err, ErrNoDevice)
	}
	defer func() {
		if err != nil {
			_ = drv.primaryCtxRelease(dev)
		}
	}()
	if err = drv.setCurrent(ctx); err != nil {
		return nil, info, err
	}
	lib, err := loadCUBLAS(CUBLASCandidates())
	if err != nil {
		return nil, info, err
	}
	info.CUBLASLib = lib.path
	handle, err := lib.createHandle()
	if err != nil {
		return nil, info, fmt.Errorf("%w (%s)", err, lib.path)
	}
	defer func() {
		if err != nil {
			_ = lib.destroyHandle(handle)
		}
	}()
	// Default math: FP32 stays FP32 (no TF32), so results match the CPU.
	if err = lib.setMath(handle, cublasDefaultMath); err != nil {
		return nil, info, err
	}
	bv, err := lib.version(handle)
	if err != nil {
		return nil, info, err
	}
	info.CUBLAS = cublasVersionString(bv)
	return &gpu{drv: drv, blas: lib, dev: dev, ctx: ctx, handle: handle}, info, nil
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

// Sgemm computes C = alpha·op(A)·op(B) + beta·C in single precision, on the GPU when the product is large enough.
func (b *Backend) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, bm []float32, ldb int, beta float32, c []float32, ldc int) {
	if !gemm.CheckGemm(tA, tB, m, n, k, len(a), lda, len(bm), ldb, len(c), ldc) {
		return
	}
	if b.wantGPU(m, n, k, lda, ldb, ldc, alpha != 0) && gpuGemm(b, tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc) {
		return
	}
	b.cpuCalls.Add(1)
	b.cpu.Sgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
}

// Dgemm computes C = alpha·op(A)·op(B) + beta·C in double precision, on the GPU when the product is large enough.
func (b *Backend) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, bm []float64, ldb int, beta float64, c []float64, ldc int) {
	if !gemm.CheckGemm(tA, tB, m, n, k, len(a), lda, len(bm), ldb, len(c), ldc) {
		return
	}
	if b.wantGPU(m, n, k, lda, ldb, ldc, alpha != 0) && gpuGemm(b, tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc) {
		return
	}
	b.cpuCalls.Add(1)
	b.cpu.Dgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
}

// wantGPU reports whether a valid, non-empty product goes to the GPU: not
// when the GPU is off, when there is nothing to multiply (alpha or k zero:
// the CPU only scales C), when a size exceeds cuBLAS's int, or below the threshold.
func (b *Backend) wantGPU(m, n, k, lda, ldb, ldc int, alphaNonZero bool) bool {
	if b.off.Load() || !alphaNonZero || k == 0 {
		return false
	}
	for _, v := range [...]int{m, n, k, lda, ldb, ldc} {
		if v > math.MaxInt32 {
			return false
		}
	}
	return b.threshold <= 0 || float64(m)*float64(n)*float64(k) >= float64(b.threshold)
}

// gpuGemm computes the product on the GPU and reports whether it did; when it
// did not, C is unchanged and the caller computes it on the CPU.
func gpuGemm[T float32 | float64](b *Backend, tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, bm []T, ldb int, beta T, c []T, ldc int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.err != nil {
		return false
	}
	start := time.Now()
	cTouched, err := gpuGemmLocked(b, tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
	b.gpuNanos.Add(int64(time.Since(start)))
	runtime.KeepAlive(a)
	runtime.KeepAlive(bm)
	runtime.KeepAlive(c)
	if err == nil {
		b.gpuCalls.Add(1)
		return true
	}
	b.err = fmt.Errorf("cuda: GPU disabled, products run on %s from now on: %w", b.cpu.Name(), err)
	b.off.Store(true)
	if cTouched && beta != 0 {
		// C was partly overwritten by a failed copy and its old value is
		// lost: the product cannot be recomputed.
		panic(fmt.Sprintf("cuda: %v (C was partly overwritten and cannot be recomputed)", err))
	}
	return false
}

// storedLen is the number of elements spanned by a row-major rows×cols matrix with leading dimension ld.
func storedLen(rows, cols, ld int) int { return (rows-1)*ld + cols }

// gpuGemmLocked runs one product with b.mu held. cTouched reports whether
// host C may have been written when err is not nil.
func gpuGemmLocked[T float32 | float64](b *Backend, tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, bm []T, ldb int, beta T, c []T, ldc int) (cTouched bool, err error) {
	var zero T
	elem := unsafe.Sizeof(zero)
	single := elem == 4

	if err := b.dev.bind(); err != nil {
		return false, err
	}
	defer b.dev.unbind()

	// A and B are copied with their leading dimensions (the span from the
	// first to the last element they use).
	lenA := storedLen(m, k, lda)
	if tA != blas.NoTrans {
		lenA = storedLen(k, m, lda)
	}
	lenB := storedLen(k, n, ldb)
	if tB != blas.NoTrans {
		lenB = storedLen(n, k, ldb)
	}
	devA, err := b.operand(slotA, unsafe.Pointer(&a[0]), lenA, elem)
	if err != nil {
		return false, err
	}
	devB, err := b.operand(slotB, unsafe.Pointer(&bm[0]), lenB, elem)
	if err != nil {
		return false, err
	}

	// C lives densely on the device (leading dimension n): a C whose rows
	// are padded goes through a host staging buffer, so the padding between
	// its rows is never written.
	cBytes := uintptr(m) * uintptr(n) * elem
	devC, err := b.buffer(slotC, cBytes)
	if err != nil {
		return false, err
	}
	dense := ldc == n || m == 1
	var stage []T
	if !dense {
		stage = stageBuf[T](b, m*n)
	}
	if beta != 0 {
		src := unsafe.Pointer(&c[0])
		if !dense {
			for i := 0; i < m; i++ {
				copy(stage[i*n:(i+1)*n], c[i*ldc:i*ldc+n])
			}
			src = unsafe.Pointer(&stage[0])
		}
		if err := b.dev.htod(devC, src, cBytes); err != nil {
			return false, err
		}
		b.bytesTo.Add(int64(cBytes))
	}

	cl := colMajor(tA, tB, m, n, k, lda, ldb, n)
	x, y := devA, devB
	if cl.first == operandB {
		x, y = devB, devA
	}
	var pa, pb unsafe.Pointer
	if single {
		b.alpha32, b.beta32 = float32(alpha), float32(beta)
		pa, pb = unsafe.Pointer(&b.alpha32), unsafe.Pointer(&b.beta32)
	} else {
		b.alpha64, b.beta64 = float64(alpha), float64(beta)
		pa, pb = unsafe.Pointer(&b.alpha64), unsafe.Pointer(&b.beta64)
	}
	if err := b.dev.gemm(single, cl, pa, x, y, pb, devC); err != nil {
		return false, err
	}

	// The copy back waits for the product (same stream) and reports its errors.
	if dense {
		if err := b.dev.dtoh(unsafe.Pointer(&c[0]), devC, cBytes); err != nil {
			return true, err
		}
	} else {
		if err := b.dev.dtoh(unsafe.Pointer(&stage[0]), devC, cBytes); err != nil {
			return false, err
		}
		for i := 0; i < m; i++ {
			copy(c[i*ldc:i*ldc+n], stage[i*n:(i+1)*n])
		}
	}
	b.bytesFrom.Add(int64(cBytes))
	return false, nil
}

// stageBuf returns the host staging buffer as count elements of T.
func stageBuf[T float32 | float64](b *Backend, count int) []T {
	var zero T
	words := (count*int(unsafe.Sizeof(zero)) + 7) / 8
	if len(b.stage) < words {
		b.stage = make([]float64, words)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b.stage[0])), count)
}

// operand returns the device address of count elements at host address p:
// a valid resident copy when p lies in a resident slice (uploading it first
// when stale), else the pooled buffer of slot after an upload.
func (b *Backend) operand(slot int, p unsafe.Pointer, count int, elem uintptr) (devPtr, error) {
	bytes := uintptr(count) * elem
	start := uintptr(p)
	if elem == 4 {
		for _, r := range b.resident {
			if start < r.start || start+bytes > r.end {
				continue
			}
			if !r.valid {
				if err := b.upload(r); err != nil {
					return 0, err
				}
			} else {
				b.residentHits.Add(1)
			}
			return r.dev + devPtr(start-r.start), nil
		}
	}
	d, err := b.buffer(slot, bytes)
	if err != nil {
		return 0, err
	}
	if err := b.dev.htod(d, p, bytes); err != nil {
		return 0, err
	}
	b.bytesTo.Add(int64(bytes))
	return d, nil
}

// upload copies a resident slice to its device copy, allocating that on first use.
func (b *Backend) upload(r *residentBuf) error {
	bytes := uintptr(len(r.host)) * 4
	if r.dev == 0 {
		d, err := b.dev.alloc(bytes)
		if err != nil {
			return err
		}
		r.dev = d
	}
	if err := b.dev.htod(r.dev, unsafe.Pointer(&r.host[0]), bytes); err != nil {
		return err
	}
	r.valid = true
	b.residentUploads.Add(1)
	b.bytesTo.Add(int64(bytes))
	return nil
}

// buffer returns slot's pooled device buffer, grown (by at least half) when smaller than bytes.
func (b *Backend) buffer(slot int, bytes uintptr) (devPtr, error) {
	buf := &b.bufs[slot]
	if buf.size >= bytes {
		return buf.ptr, nil
	}
	size := max(bytes, buf.size+buf.size/2)
	const align = 1 << 16
	size = (size + align - 1) &^ (align - 1)
	if buf.ptr != 0 {
		if err := b.dev.free(buf.ptr); err != nil {
			return 0, err
		}
		*buf = devBuf{}
	}
	p, err := b.dev.alloc(size)
	if err != nil {
		return 0, err
	}
	*buf = devBuf{ptr: p, size: size}
	return p, nil
}
