package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/accel"
)

// stagingBytes is the pinned host area batches are sent from (larger writes are copied
// straight from Go memory).
const stagingBytes = 8 << 20

// Accel is an NVIDIA GPU as an accel.Device: the kernels of accel.Source compiled for it by
// NVRTC at start, products by cuBLAS on device pointers, everything queued on one stream.
// One goroutine locked to its OS thread owns the context, stream and cuBLAS handle; Do runs
// work there. Writes go through a pinned staging area used in halves: a half is reused only
// after a Read or Sync has waited for the copies out of it.
type Accel struct {
	drv    *driver
	blas   *cublasLib
	nv     *nvrtcLib
	dev    int32
	ctx    uintptr
	handle uintptr
	stream uintptr
	module uintptr
	funcs  map[string]uintptr
	info   DeviceInfo
	arch   string
	work   chan func()
	stage  unsafe.Pointer // pinned, stagingBytes
	used   uintptr        // bytes of the current half in use
	half   uintptr        // offset of the current half
	slots  []uint64       // launch argument values
	params []unsafe.Pointer
}

// ResidentInfo describes an opened Accel: the device and the libraries loaded.
type ResidentInfo struct {
	DeviceInfo
	NVRTC    string // NVRTC version
	NVRTCLib string // NVRTC library as loaded
	Arch     string // the virtual architecture compiled for, e.g. "90"
}

// OpenResident opens GPU ordinal for a device-resident step and compiles the kernels.
func OpenResident(ordinal int) (*Accel, error) {
	a := &Accel{work: make(chan func()), funcs: map[string]uintptr{}}
	ready := make(chan error)
	go a.own(ordinal, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return a, nil
}

// own is the owner goroutine: it opens everything on its locked thread, then runs Do's work.
func (a *Accel) own(ordinal int, ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := a.open(ordinal); err != nil {
		a.release()
		ready <- err
		return
	}
	ready <- nil
	for fn := range a.work {
		fn()
	}
}

func (a *Accel) open(ordinal int) error {
	g, info, err := openGPU(ordinal)
	if err != nil {
		return err
	}
	a.drv, a.blas, a.dev, a.ctx, a.handle, a.info = g.drv, g.blas, g.dev, g.ctx, g.handle, info
	if err := a.drv.setCurrent(a.ctx); err != nil {
		return err
	}
	if _, err := a.drv.resident(); err != nil {
		return err
	}
	if a.blas.setStream == 0 {
		return fmt.Errorf("cuda: %s lacks cublasSetStream_v2", a.blas.path)
	}
	if a.stream, err = a.drv.streamCreate(); err != nil {
		return err
	}
	if r, _, _ := purego.SyscallN(a.blas.setStream, a.handle, a.stream); r != 0 {
		return checkCUBLAS("cublasSetStream_v2", r)
	}
	major, err := a.drv.attribute(attrComputeMajor, a.dev)
	if err != nil {
		return err
	}
	minor, err := a.drv.attribute(attrComputeMinor, a.dev)
	if err != nil {
		return err
	}
	a.arch = fmt.Sprintf("%d%d", major, minor)
	if a.nv, err = loadNVRTC(NVRTCCandidates()); err != nil {
		return err
	}
	ptx, err := a.nv.compilePTX(accel.Source, "windtunnel_kernels.cu", a.arch)
	if err != nil {
		return fmt.Errorf("cuda: compile kernels with %s for compute_%s: %w", a.nv.path, a.arch, err)
	}
	if a.module, err = a.drv.moduleLoad(ptx); err != nil {
		return err
	}
	for name := range accel.Catalogue() {
		f, err := a.drv.moduleFunction(a.module, name)
		if err != nil {
			return err
		}
		a.funcs[name] = f
	}
	if a.stage, err = a.drv.memAllocHost(stagingBytes); err != nil {
		return err
	}
	return nil
}

// release frees what open made, in reverse; errors are joined.
func (a *Accel) release() error {
	var errs []error
	if a.drv == nil {
		return nil
	}
	if a.stream != 0 {
		errs = append(errs, a.drv.streamSync(a.stream))
	}
	if a.stage != nil {
		errs = append(errs, a.drv.memFreeHost(a.stage))
		a.stage = nil
	}
	if a.module != 0 {
		errs = append(errs, a.drv.moduleUnload(a.module))
		a.module = 0
	}
	if a.handle != 0 {
		errs = append(errs, a.blas.destroyHandle(a.handle))
		a.handle = 0
	}
	if a.stream != 0 {
		errs = append(errs, a.drv.streamDestroy(a.stream))
		a.stream = 0
	}
	if a.ctx != 0 {
		errs = append(errs, a.drv.primaryCtxRelease(a.dev))
		a.ctx = 0
	}
	return errors.Join(errs...)
}

// Info describes the device and libraries.
func (a *Accel) Info() ResidentInfo {
	return ResidentInfo{DeviceInfo: a.info, NVRTC: a.nv.versionString(), NVRTCLib: a.nv.path, Arch: a.arch}
}

// Name implements accel.Device.
func (a *Accel) Name() string {
	return fmt.Sprintf("%s, kernels by NVRTC %s for compute_%s", a.info, a.nv.versionString(), a.arch)
}

// Do implements accel.Device.
func (a *Accel) Do(fn func() error) error {
	done := make(chan error, 1)
	a.work <- func() { done <- fn() }
	return <-done
}

func addr(p accel.Ptr) devPtr { return devPtr(p.Base + 4*uint64(p.Off)) }

// Alloc implements accel.Device.
func (a *Accel) Alloc(n int) (accel.Ptr, error) {
	p, err := a.drv.memAlloc(uintptr(max(n, 1)) * 4)
	if err != nil {
		return accel.Ptr{}, err
	}
	if err := a.drv.memsetD32(p, 0, uintptr(max(n, 1))); err != nil {
		_ = a.drv.memFree(p)
		return accel.Ptr{}, err
	}
	return accel.Ptr{Base: uint64(p)}, nil
}

// Free implements accel.Device.
func (a *Accel) Free(p accel.Ptr) error { return a.drv.memFree(devPtr(p.Base)) }

// write sends bytes from src, through the pinned staging area when they fit in a half.
func (a *Accel) write(dst accel.Ptr, src unsafe.Pointer, bytes uintptr) error {
	if bytes == 0 {
		return nil
	}
	const halfBytes = stagingBytes / 2
	if bytes > halfBytes {
		return a.drv.htodAsync(addr(dst), src, bytes, a.stream)
	}
	if a.used+bytes > halfBytes {
		// This half is full: switch halves, waiting for the copies out of the other.
		if err := a.drv.streamSync(a.stream); err != nil {
			return err
		}
		a.half, a.used = halfBytes-a.half, 0
	}
	p := unsafe.Add(a.stage, a.half+a.used)
	copy(unsafe.Slice((*byte)(p), bytes), unsafe.Slice((*byte)(src), bytes))
	a.used += (bytes + 255) &^ 255
	return a.drv.htodAsync(addr(dst), p, bytes, a.stream)
}

// Write implements accel.Device.
func (a *Accel) Write(dst accel.Ptr, src []float32) error {
	if len(src) == 0 {
		return nil
	}
	return a.write(dst, unsafe.Pointer(&src[0]), uintptr(len(src))*4)
}

// WriteInts implements accel.Device.
func (a *Accel) WriteInts(dst accel.Ptr, src []int32) error {
	if len(src) == 0 {
		return nil
	}
	return a.write(dst, unsafe.Pointer(&src[0]), uintptr(len(src))*4)
}

// Read implements accel.Device: it waits for all queued work, so the staging area is free.
func (a *Accel) Read(dst []float32, src accel.Ptr) error {
	if len(dst) > 0 {
		if err := a.drv.dtohAsync(unsafe.Pointer(&dst[0]), addr(src), uintptr(len(dst))*4, a.stream); err != nil {
			return err
		}
	}
	return a.Sync()
}

// Sync implements accel.Device.
func (a *Accel) Sync() error {
	a.used = 0
	return a.drv.streamSync(a.stream)
}

// Launch implements accel.Device.
func (a *Accel) Launch(name string, g accel.Grid, args ...any) error {
	if err := accel.CheckArgs(name, args); err != nil {
		return err
	}
	f := a.funcs[name]
	a.slots = a.slots[:0]
	for _, v := range args {
		switch x := v.(type) {
		case accel.Ptr:
			a.slots = append(a.slots, uint64(addr(x)))
			if x.IsNil() {
				a.slots[len(a.slots)-1] = 0
			}
		case int32:
			a.slots = append(a.slots, uint64(uint32(x)))
		case float32:
			a.slots = append(a.slots, uint64(*(*uint32)(unsafe.Pointer(&x))))
		}
	}
	a.params = a.params[:0]
	for i := range a.slots {
		a.params = append(a.params, unsafe.Pointer(&a.slots[i]))
	}
	var p unsafe.Pointer
	if len(a.params) > 0 {
		p = unsafe.Pointer(&a.params[0])
	}
	err := a.drv.launchKernel(f, g.Blocks, g.Threads, a.stream, p)
	runtime.KeepAlive(a.slots)
	if err != nil {
		return fmt.Errorf("cuda: launch %s: %w", name, err)
	}
	return nil
}

// Gemm implements accel.Device with cublasSgemm_v2 on device pointers.
func (a *Accel) Gemm(tA, tB bool, m, n, k int, alpha float32, ap accel.Ptr, lda int, bp accel.Ptr, ldb int, beta float32, cp accel.Ptr, ldc int) error {
	if m == 0 || n == 0 {
		return nil
	}
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	c := colMajor(ta, tb, m, n, k, lda, ldb, ldc)
	// colMajor passes B first: Cᵀ = op(B)ᵀ·op(A)ᵀ in cuBLAS's column-major terms.
	return a.blas.gemm(a.handle, true, c, unsafe.Pointer(&alpha), addr(bp), addr(ap), unsafe.Pointer(&beta), addr(cp))
}

// Close implements accel.Device: it releases everything and stops the owner goroutine.
func (a *Accel) Close() error {
	if a.work == nil {
		return nil
	}
	err := a.Do(a.release)
	close(a.work)
	a.work = nil
	return err
}
