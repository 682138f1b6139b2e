package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

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

// openGPU loads the libraries, retains the primary context of device ordinal
// and creates a cuBLAS handle on it. info is filled as far as it got.
func openGPU(ordinal int) (g *gpu, info DeviceInfo, err error) {
	info.Device = ordinal
	drv, err := initDriver(DriverCandidates(), loadDriverFrom, (*driver).init)
	if err != nil {
		return nil, info, err
	}
	info.DriverLib = drv.path
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
