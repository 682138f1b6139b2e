package cuda

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
)

// residentAPI holds the driver entry points the device-resident step uses beyond the GEMM
// path's: a stream, asynchronous copies, memset, modules and kernel launches.
type residentAPI struct {
	streamCreate, streamDestroy, streamSync   uintptr
	htodAsync, dtohAsync, memsetD32           uintptr
	moduleLoadData, moduleGetFunc, moduleUnld uintptr
	launch, attribute                         uintptr
	memAllocHost, memFreeHost                 uintptr
}

// resident binds (once) the entry points of residentAPI.
func (d *driver) resident() (*residentAPI, error) {
	if d.res != nil {
		return d.res, nil
	}
	a := &residentAPI{}
	err := bindSymbols(d.handle, []struct {
		name string
		fn   *uintptr
	}{
		{"cuStreamCreate", &a.streamCreate},
		{"cuStreamDestroy_v2", &a.streamDestroy},
		{"cuStreamSynchronize", &a.streamSync},
		{"cuMemcpyHtoDAsync_v2", &a.htodAsync},
		{"cuMemcpyDtoHAsync_v2", &a.dtohAsync},
		{"cuMemsetD32_v2", &a.memsetD32},
		{"cuModuleLoadData", &a.moduleLoadData},
		{"cuModuleGetFunction", &a.moduleGetFunc},
		{"cuModuleUnload", &a.moduleUnld},
		{"cuLaunchKernel", &a.launch},
		{"cuDeviceGetAttribute", &a.attribute},
		{"cuMemAllocHost_v2", &a.memAllocHost},
		{"cuMemFreeHost", &a.memFreeHost},
	})
	if err != nil {
		return nil, fmt.Errorf("cuda: %s: %w", d.path, err)
	}
	d.res = a
	return a, nil
}

// CUdevice_attribute values read by the resident step.
const (
	attrComputeMajor = 75
	attrComputeMinor = 76
	attrSMCount      = 16
)

func (d *driver) attribute(attr int, dev int32) (int, error) {
	var v int32
	r, _, _ := purego.SyscallN(d.res.attribute, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(dev))
	return int(v), d.check("cuDeviceGetAttribute", r)
}

func (d *driver) streamCreate() (uintptr, error) {
	var s uintptr
	r, _, _ := purego.SyscallN(d.res.streamCreate, uintptr(unsafe.Pointer(&s)), 0)
	return s, d.check("cuStreamCreate", r)
}

func (d *driver) streamDestroy(s uintptr) error {
	r, _, _ := purego.SyscallN(d.res.streamDestroy, s)
	return d.check("cuStreamDestroy_v2", r)
}

func (d *driver) streamSync(s uintptr) error {
	r, _, _ := purego.SyscallN(d.res.streamSync, s)
	return d.check("cuStreamSynchronize", r)
}

// htodAsync queues a copy of host memory (pinned, or pageable: then staged by the driver
// before the call returns) to the device on stream s.
func (d *driver) htodAsync(dst devPtr, src unsafe.Pointer, bytes uintptr, s uintptr) error {
	r, _, _ := purego.SyscallN(d.res.htodAsync, uintptr(dst), uintptr(src), bytes, s)
	return d.check("cuMemcpyHtoDAsync_v2", r)
}

func (d *driver) dtohAsync(dst unsafe.Pointer, src devPtr, bytes uintptr, s uintptr) error {
	r, _, _ := purego.SyscallN(d.res.dtohAsync, uintptr(dst), uintptr(src), bytes, s)
	return d.check("cuMemcpyDtoHAsync_v2", r)
}

func (d *driver) memsetD32(dst devPtr, v uint32, n uintptr) error {
	r, _, _ := purego.SyscallN(d.res.memsetD32, uintptr(dst), uintptr(v), n)
	return d.check("cuMemsetD32_v2", r)
}

// moduleLoad loads a NUL-terminated PTX image (JIT-compiled by the driver for the device).
func (d *driver) moduleLoad(image []byte) (uintptr, error) {
	var m uintptr
	r, _, _ := purego.SyscallN(d.res.moduleLoadData, uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&image[0])))
	return m, d.check("cuModuleLoadData", r)
}

func (d *driver) moduleFunction(m uintptr, name string) (uintptr, error) {
	var f uintptr
	cname := append([]byte(name), 0)
	r, _, _ := purego.SyscallN(d.res.moduleGetFunc, uintptr(unsafe.Pointer(&f)), m, uintptr(unsafe.Pointer(&cname[0])))
	return f, d.check("cuModuleGetFunction "+name, r)
}

func (d *driver) moduleUnload(m uintptr) error {
	r, _, _ := purego.SyscallN(d.res.moduleUnld, m)
	return d.check("cuModuleUnload", r)
}

// launchKernel queues f over blocks×threads on stream s; params points to an array of
// pointers to the argument values.
func (d *driver) launchKernel(f uintptr, blocks, threads int, s uintptr, params unsafe.Pointer) error {
	r, _, _ := purego.SyscallN(d.res.launch, f, uintptr(blocks), 1, 1, uintptr(threads), 1, 1, 0, s, uintptr(params), 0)
	return d.check("cuLaunchKernel", r)
}

func (d *driver) memAllocHost(bytes uintptr) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	r, _, _ := purego.SyscallN(d.res.memAllocHost, uintptr(unsafe.Pointer(&p)), bytes)
	return p, d.check("cuMemAllocHost_v2", r)
}

func (d *driver) memFreeHost(p unsafe.Pointer) error {
	r, _, _ := purego.SyscallN(d.res.memFreeHost, uintptr(p))
	return d.check("cuMemFreeHost", r)
}
