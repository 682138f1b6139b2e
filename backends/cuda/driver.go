package cuda

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"

	"windtunnel/backends/gemm"
)

// EnvLibCUDA names the environment variable holding a driver library path that is tried before the default candidates.
const EnvLibCUDA = "WINDTUNNEL_LIBCUDA"

// ErrNoDriver is wrapped by the error of Open and Probe when no CUDA driver library could be loaded.
var ErrNoDriver = errors.New("no CUDA driver library")

// ErrNoDevice is wrapped by the error of Open and Probe when the driver loads but cuInit fails or finds no usable device.
var ErrNoDevice = errors.New("no usable CUDA device")

// DriverCandidates returns, in search order, the library names and paths that Open tries for the CUDA driver (libcuda).
func DriverCandidates() []string {
	var paths []string
	if p := os.Getenv(EnvLibCUDA); p != "" {
		paths = append(paths, p)
	}
	return append(paths,
		"libcuda.so.1",
		"libcuda.so",
		"/usr/lib/x86_64-linux-gnu/libcuda.so.1",
		"/usr/lib64/libcuda.so.1",
		"/usr/local/nvidia/lib64/libcuda.so.1",
		"/usr/lib/aarch64-linux-gnu/libcuda.so.1",
		"/usr/lib/wsl/lib/libcuda.so.1",
	)
}

// devPtr is a CUdeviceptr: an address in device memory.
type devPtr uint64

// cudaSuccess is CUDA_SUCCESS; every other CUresult is an error.
const cudaSuccess = 0

// Error is a CUDA driver or cuBLAS call that returned a status other than success.
type Error struct {
	Op   string // the function called, e.g. "cuMemAlloc_v2"
	Code int    // the CUresult or cublasStatus_t it returned
	Msg  string // the library's name and description of Code
}

// Error formats the failed call as "cuda: OP: MSG (code N)".
func (e *Error) Error() string {
	return fmt.Sprintf("cuda: %s: %s (code %d)", e.Op, e.Msg, e.Code)
}

// driver holds the entry points of a loaded libcuda. All calls go through
// purego.SyscallN: every argument is an integer or a pointer, so no
// reflection (and no allocation beyond escaping out-parameters) is needed.
type driver struct {
	path   string
	handle uintptr // the dlopen handle, for the resident step's entry points
	res    *residentAPI

	cuInit                   uintptr
	cuDriverGetVersion       uintptr
	cuDeviceGetCount         uintptr
	cuDeviceGet              uintptr
	cuDeviceGetName          uintptr
	cuDeviceTotalMem         uintptr
	cuDevicePrimaryCtxRetain uintptr
	cuCtxSetCurrent          uintptr
	cuMemAlloc               uintptr
	cuMemFree                uintptr
	cuMemcpyHtoD             uintptr
	cuMemcpyDtoH             uintptr
	cuCtxSynchronize         uintptr
	cuGetErrorString         uintptr
	// Optional entry points (0 when absent).
	cuGetErrorName            uintptr
	cuDevicePrimaryCtxRelease uintptr
}

// loadDriver loads the first candidate that opens and exports every
// required entry point. The error wraps ErrNoDriver and names every path
// tried with the reason it was rejected.
func loadDriver(paths []string) (*driver, error) {
	var tried []string
	for _, path := range paths {
		d, err := loadDriverFrom(path)
		if err == nil {
			return d, nil
		}
		tried = append(tried, triedMsg(path, err))
	}
	return nil, fmt.Errorf("cuda: load driver: tried %s (set %s to add a path): %w",
		strings.Join(tried, "; "), EnvLibCUDA, ErrNoDriver)
}

// initDriver returns the first candidate that loads and whose cuInit succeeds: a stub or
// mismatched libcuda earlier in the search (one that loads but cannot initialise) does not end
// it. The error names every candidate with its reason and wraps ErrNoDevice when some library
// loaded, else ErrNoDriver.
func initDriver(paths []string, load func(string) (*driver, error), init func(*driver) error) (*driver, error) {
	var tried []string
	loaded := false
	for _, path := range paths {
		d, err := load(path)
		if err == nil {
			loaded = true
			if err = init(d); err == nil {
				return d, nil
			}
		}
		tried = append(tried, triedMsg(path, err))
	}
	sentinel := ErrNoDriver
	if loaded {
		sentinel = ErrNoDevice
	}
	return nil, fmt.Errorf("cuda: load and initialise driver: tried %s (set %s to add a path): %w",
		strings.Join(tried, "; "), EnvLibCUDA, sentinel)
}

// triedMsg formats one rejected candidate, naming the path once.
func triedMsg(path string, err error) string {
	msg := err.Error()
	if strings.Contains(msg, path) { // dlerror usually names the path already
		return msg
	}
	return path + ": " + msg
}

func loadDriverFrom(path string) (d *driver, err error) {
	h, err := dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err
	}
	// The handle is never closed: the library stays loaded for the life of
	// the process, and a later dlopen of it only bumps its reference count.
	d = &driver{path: path, handle: h}
	required := []struct {
		name string
		fn   *uintptr
	}{
		{"cuInit", &d.cuInit},
		{"cuDriverGetVersion", &d.cuDriverGetVersion},
		{"cuDeviceGetCount", &d.cuDeviceGetCount},
		{"cuDeviceGet", &d.cuDeviceGet},
		{"cuDeviceGetName", &d.cuDeviceGetName},
		{"cuDeviceTotalMem_v2", &d.cuDeviceTotalMem},
		{"cuDevicePrimaryCtxRetain", &d.cuDevicePrimaryCtxRetain},
		{"cuCtxSetCurrent", &d.cuCtxSetCurrent},
		{"cuMemAlloc_v2", &d.cuMemAlloc},
		{"cuMemFree_v2", &d.cuMemFree},
		{"cuMemcpyHtoD_v2", &d.cuMemcpyHtoD},
		{"cuMemcpyDtoH_v2", &d.cuMemcpyDtoH},
		{"cuCtxSynchronize", &d.cuCtxSynchronize},
		{"cuGetErrorString", &d.cuGetErrorString},
	}
	if err := bindSymbols(h, required); err != nil {
		return nil, err
	}
	d.cuGetErrorName = optionalSymbol(h, "cuGetErrorName")
	d.cuDevicePrimaryCtxRelease = optionalSymbol(h, "cuDevicePrimaryCtxRelease_v2")
	if d.cuDevicePrimaryCtxRelease == 0 {
		d.cuDevicePrimaryCtxRelease = optionalSymbol(h, "cuDevicePrimaryCtxRelease")
	}
	return d, nil
}

// dlopen opens a library, turning a purego panic (which it raises for
// some malformed files) into an error for that candidate.
func dlopen(path string, mode int) (h uintptr, err error) {
	if err := gemm.CheckLibraryPath(path); err != nil {
		return 0, err
	}
	defer func() {
		if r := recover(); r != nil {
			h, err = 0, fmt.Errorf("%s: %v", path, r)
		}
	}()
	return gemm.Dlopen(path, mode)
}

// bindSymbols resolves every named symbol into its pointer, or reports all
// the missing ones.
func bindSymbols(h uintptr, syms []struct {
	name string
	fn   *uintptr
}) error {
	var missing []string
	for _, s := range syms {
		*s.fn = optionalSymbol(h, s.name)
		if *s.fn == 0 {
			missing = append(missing, s.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing symbol(s) %s", strings.Join(missing, ", "))
	}
	return nil
}

// optionalSymbol returns the address of name in the library h, or 0.
func optionalSymbol(h uintptr, name string) uintptr {
	p, err := purego.Dlsym(h, name)
	if err != nil {
		return 0
	}
	return p
}

// cString copies a NUL-terminated C string (at most 4096 bytes) into Go memory.
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := 0; i < 4096; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// check turns a CUresult into nil or an *Error naming the call.
func (d *driver) check(op string, r uintptr) error {
	code := int(int32(uint32(r)))
	if code == cudaSuccess {
		return nil
	}
	return &Error{Op: op, Code: code, Msg: d.errorText(code)}
}

// errorText describes a CUresult as "NAME: description" (either part may
// be missing for codes the driver does not know).
func (d *driver) errorText(code int) string {
	var name, desc string
	if d.cuGetErrorName != 0 {
		var p *byte
		if r, _, _ := purego.SyscallN(d.cuGetErrorName, uintptr(code), uintptr(unsafe.Pointer(&p))); uint32(r) == cudaSuccess {
			name = cString(p)
		}
	}
	var p *byte
	if r, _, _ := purego.SyscallN(d.cuGetErrorString, uintptr(code), uintptr(unsafe.Pointer(&p))); uint32(r) == cudaSuccess {
		desc = cString(p)
	}
	switch {
	case name != "" && desc != "":
		return name + ": " + desc
	case name != "" || desc != "":
		return name + desc
	default:
		return "unknown CUDA error"
	}
}

func (d *driver) init() error {
	r, _, _ := purego.SyscallN(d.cuInit, 0)
	return d.check("cuInit", r)
}

// version returns cuDriverGetVersion's number, e.g. 13000 for CUDA 13.0.
func (d *driver) version() (int, error) {
	var v int32
	r, _, _ := purego.SyscallN(d.cuDriverGetVersion, uintptr(unsafe.Pointer(&v)))
	return int(v), d.check("cuDriverGetVersion", r)
}

func (d *driver) deviceCount() (int, error) {
	var n int32
	r, _, _ := purego.SyscallN(d.cuDeviceGetCount, uintptr(unsafe.Pointer(&n)))
	return int(n), d.check("cuDeviceGetCount", r)
}

// device returns the CUdevice handle of ordinal i.
func (d *driver) device(i int) (int32, error) {
	var dev int32
	r, _, _ := purego.SyscallN(d.cuDeviceGet, uintptr(unsafe.Pointer(&dev)), uintptr(i))
	return dev, d.check("cuDeviceGet", r)
}

func (d *driver) deviceName(dev int32) (string, error) {
	buf := make([]byte, 256)
	r, _, _ := purego.SyscallN(d.cuDeviceGetName, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)-1), uintptr(dev))
	if err := d.check("cuDeviceGetName", r); err != nil {
		return "", err
	}
	return cString(&buf[0]), nil
}

func (d *driver) totalMem(dev int32) (int64, error) {
	var n uint64
	r, _, _ := purego.SyscallN(d.cuDeviceTotalMem, uintptr(unsafe.Pointer(&n)), uintptr(dev))
	return int64(n), d.check("cuDeviceTotalMem_v2", r)
}

// primaryCtxRetain returns the device's primary context (a CUcontext).
func (d *driver) primaryCtxRetain(dev int32) (uintptr, error) {
	var ctx uintptr
	r, _, _ := purego.SyscallN(d.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&ctx)), uintptr(dev))
	return ctx, d.check("cuDevicePrimaryCtxRetain", r)
}

// primaryCtxRelease releases one reference to the primary context; a no-op
// when the driver lacks the entry point.
func (d *driver) primaryCtxRelease(dev int32) error {
	if d.cuDevicePrimaryCtxRelease == 0 {
		return nil
	}
	r, _, _ := purego.SyscallN(d.cuDevicePrimaryCtxRelease, uintptr(dev))
	return d.check("cuDevicePrimaryCtxRelease", r)
}

// setCurrent binds ctx to the calling OS thread.
func (d *driver) setCurrent(ctx uintptr) error {
	r, _, _ := purego.SyscallN(d.cuCtxSetCurrent, ctx)
	return d.check("cuCtxSetCurrent", r)
}

// memAlloc allocates plain device memory (never managed memory).
func (d *driver) memAlloc(bytes uintptr) (devPtr, error) {
	var p uint64
	r, _, _ := purego.SyscallN(d.cuMemAlloc, uintptr(unsafe.Pointer(&p)), bytes)
	if err := d.check("cuMemAlloc_v2", r); err != nil {
		return 0, fmt.Errorf("%w (%d bytes)", err, bytes)
	}
	return devPtr(p), nil
}

func (d *driver) memFree(p devPtr) error {
	r, _, _ := purego.SyscallN(d.cuMemFree, uintptr(p))
	return d.check("cuMemFree_v2", r)
}

// htod copies bytes from host memory at src to device memory at dst.
func (d *driver) htod(dst devPtr, src unsafe.Pointer, bytes uintptr) error {
	r, _, _ := purego.SyscallN(d.cuMemcpyHtoD, uintptr(dst), uintptr(src), bytes)
	return d.check("cuMemcpyHtoD_v2", r)
}

// dtoh copies bytes from device memory at src to host memory at dst; it
// returns once the copy (and all earlier work on the default stream) is done.
func (d *driver) dtoh(dst unsafe.Pointer, src devPtr, bytes uintptr) error {
	r, _, _ := purego.SyscallN(d.cuMemcpyDtoH, uintptr(dst), uintptr(src), bytes)
	return d.check("cuMemcpyDtoH_v2", r)
}

func (d *driver) synchronize() error {
	r, _, _ := purego.SyscallN(d.cuCtxSynchronize)
	return d.check("cuCtxSynchronize", r)
}

// driverVersionString formats cuDriverGetVersion's number: 13000 → "13.0".
func driverVersionString(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}
