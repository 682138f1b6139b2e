//go:build linux

package accel

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The CUDA source itself (kernels.cu, as NVRTC compiles it on a GPU) run on the CPU: clang
// compiles it as host C++ against testdata/cuda_host_shim.h (a block's threads as fibers run
// in a fresh random order after every __syncthreads, a real barrier; __shared__ poisoned with
// NaN before every block)
// with one C launcher a kernel, and the test loads the library with purego (no cgo).

// guard is the number of sentinel elements on each side of a cpuCUDA allocation.
const guard = 64

// sentinel is the bit pattern of the guard elements: a NaN no kernel computes.
const sentinel = 0x7fa5a5a5

// cpuCUDA is a Device whose kernels are kernels.cu compiled for the CPU: memory is Go slices
// with guard elements either side (a kernel that writes outside its buffers fails its
// launch), launches call the library's launch_<kernel>(grid, block, shared bytes, args).
type cpuCUDA struct {
	lib     uintptr
	kernels map[string][]Kind
	syms    map[string]uintptr
	bufs    map[uint64][]float32
	next    uint64
	slots   []uint64
	params  []unsafe.Pointer
	pinned  runtime.Pinner
	library string
}

// openCPUCUDA loads the compiled library and looks up the launcher of every kernel of
// kernels (name: argument kinds).
func openCPUCUDA(path string, kernels map[string][]Kind) (*cpuCUDA, error) {
	lib, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	c := &cpuCUDA{lib: lib, kernels: kernels, syms: map[string]uintptr{}, bufs: map[uint64][]float32{}, library: filepath.Base(path)}
	for name := range kernels {
		s, err := purego.Dlsym(lib, "launch_"+name)
		if err != nil {
			return nil, fmt.Errorf("%s: no launcher for %s: %w", path, name, err)
		}
		c.syms[name] = s
	}
	return c, nil
}

func (c *cpuCUDA) Name() string             { return "kernels.cu on the CPU (" + c.library + ")" }
func (c *cpuCUDA) Do(fn func() error) error { return fn() }
func (c *cpuCUDA) Sync() error              { return nil }

func (c *cpuCUDA) Alloc(n int) (Ptr, error) {
	b := make([]float32, max(n, 1)+2*guard)
	for i := range guard {
		b[i] = math.Float32frombits(sentinel)
		b[len(b)-1-i] = math.Float32frombits(sentinel)
	}
	c.next++
	c.bufs[c.next] = b
	return Ptr{Base: c.next}, nil
}

func (c *cpuCUDA) Free(p Ptr) error {
	if _, ok := c.bufs[p.Base]; !ok {
		return fmt.Errorf("free of unknown buffer %d", p.Base)
	}
	delete(c.bufs, p.Base)
	return nil
}

// span returns the n elements at p inside their allocation's guards.
func (c *cpuCUDA) span(p Ptr, n int) ([]float32, error) {
	b, ok := c.bufs[p.Base]
	if !ok || p.Off < 0 || guard+p.Off+n > len(b)-guard {
		return nil, fmt.Errorf("elements %d..%d outside buffer %d", p.Off, p.Off+n, p.Base)
	}
	return b[guard+p.Off : guard+p.Off+n], nil
}

func (c *cpuCUDA) Write(dst Ptr, src []float32) error {
	d, err := c.span(dst, len(src))
	if err == nil {
		copy(d, src)
	}
	return err
}

func (c *cpuCUDA) WriteInts(dst Ptr, src []int32) error {
	f := make([]float32, len(src))
	for i, v := range src {
		f[i] = math.Float32frombits(uint32(v))
	}
	return c.Write(dst, f)
}

func (c *cpuCUDA) Read(dst []float32, src Ptr) error {
	s, err := c.span(src, len(dst))
	if err == nil {
		copy(dst, s)
	}
	return err
}

func (c *cpuCUDA) Gemm(bool, bool, int, int, int, float32, Ptr, int, Ptr, int, float32, Ptr, int) error {
	return fmt.Errorf("kernels.cu on the CPU: no products (cuBLAS's part)")
}

func (c *cpuCUDA) Close() error {
	c.bufs = map[uint64][]float32{}
	return purego.Dlclose(c.lib)
}

// launchErrors are the shim's failure codes (cuda_host_shim.h).
var launchErrors = map[int32]string{
	-1: "invalid grid", -2: "dynamic shared memory is not emulated",
	-3: "divergent __syncthreads (not every thread of a block reached the same barrier)",
	-5: "no memory for the block's thread stacks", -6: "launch already running",
}

// Launch runs the kernel's launcher as cuLaunchKernel would: an array of pointers to the
// argument values. Afterwards every allocation's guards must hold their sentinel.
func (c *cpuCUDA) Launch(name string, g Grid, args ...any) error {
	spec, ok := c.kernels[name]
	if !ok {
		return fmt.Errorf("no kernel %s in %s", name, c.library)
	}
	if err := checkKinds(name, spec, args); err != nil {
		return err
	}
	c.slots, c.params = c.slots[:0], c.params[:0]
	for _, v := range args {
		var s uint64
		switch x := v.(type) {
		case Ptr:
			if !x.IsNil() {
				b, err := c.span(x, 0)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				p := unsafe.Pointer(unsafe.SliceData(b[:1:1]))
				c.pinned.Pin(p)
				s = uint64(uintptr(p))
			}
		case int32:
			s = uint64(uint32(x))
		case float32:
			s = uint64(math.Float32bits(x))
		}
		c.slots = append(c.slots, s)
	}
	for i := range c.slots {
		c.params = append(c.params, unsafe.Pointer(&c.slots[i]))
	}
	var params unsafe.Pointer
	if len(c.params) > 0 {
		params = unsafe.Pointer(&c.params[0])
		c.pinned.Pin(&c.slots[0])
		c.pinned.Pin(params)
	}
	r, _, _ := purego.SyscallN(c.syms[name], uintptr(g.Blocks), 1, 1, uintptr(g.Threads), 1, 1, 0, uintptr(params))
	c.pinned.Unpin()
	if rc := int32(r); rc != 0 {
		return fmt.Errorf("%s over %d×%d: %s", name, g.Blocks, g.Threads, launchErrors[rc])
	}
	for base, b := range c.bufs {
		for i := range guard {
			if math.Float32bits(b[i]) != sentinel || math.Float32bits(b[len(b)-1-i]) != sentinel {
				return fmt.Errorf("%s over %d×%d wrote outside buffer %d", name, g.Blocks, g.Threads, base)
			}
		}
	}
	return nil
}

// hostLaunchers is the C++ translation unit of the CPU library: the shim, the CUDA source
// and launch_<kernel> for every kernel of kernels (argument kinds as the catalogue's).
func hostLaunchers(source string, kernels map[string][]Kind) string {
	var names []string
	for n := range kernels {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "#include \"cuda_host_shim.h\"\n#include %q\n\n", source)
	ctype := map[Kind]string{FloatPtr: "float*", IntPtr: "int*", Int: "int", Float: "float"}
	for _, n := range names {
		var args []string
		for i, k := range kernels[n] {
			args = append(args, fmt.Sprintf("*(%s*)a[%d]", ctype[k], i))
		}
		fmt.Fprintf(&b, "static void body_%s(void** a) { %s(%s); }\n", n, n, strings.Join(args, ", "))
		fmt.Fprintf(&b, "extern \"C\" int launch_%s(int gx, int gy, int gz, int bx, int by, int bz, int shared, void** a) {\n", n)
		fmt.Fprintf(&b, "  return wt_host::launch(body_%s, gx, gy, gz, bx, by, bz, shared, a);\n}\n", n)
	}
	return b.String()
}

// compileForCPU writes source (as name) and its launchers to a temporary folder and
// compiles them with clang into a shared library; it returns the library's path.
func compileForCPU(t *testing.T, clang, name, source string, kernels map[string][]Kind) string {
	t.Helper()
	dir := t.TempDir()
	shim, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(source), 0o600); err != nil {
		t.Fatal(err)
	}
	tu := filepath.Join(dir, "launchers.cc")
	if err := os.WriteFile(tu, []byte(hostLaunchers(name, kernels)), 0o600); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "kernels_cpu.so")
	cmd := exec.Command(clang, "-x", "c++", "-std=c++17", "-O1", "-fPIC", "-shared", "-fno-exceptions",
		"-fno-rtti", "-ffp-contract=off", "-fsanitize=undefined", "-fsanitize-trap=undefined", "-Wall", "-Werror", "-I", shim, "-o", lib, tu, "-lm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	return lib
}

// TestCUDASourceOnCPU runs every kernel of kernels.cu (the source NVRTC compiles, not its Go
// twin) on the CPU at every parity shape and grid, outputs NaN-filled, against the host's
// Go versions within the GPU parity test's tolerance.
func TestCUDASourceOnCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels.cu with clang and runs every kernel on the CPU: 3.5 s of CPU")
	}
	clang := findClang(t)
	dev, err := openCPUCUDA(compileForCPU(t, clang, "kernels.cu", Source, Catalogue()), Catalogue())
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	worst := map[string]float64{}
	for _, r := range ParityRun(NewHost(nil), dev, 7, ParityTol) {
		if r.Err != nil {
			t.Error(r.Err)
		}
		worst[r.Kernel] = max(worst[r.Kernel], r.Worst)
	}
	var names []string
	for n := range Catalogue() {
		names = append(names, n)
		if _, ok := worst[n]; !ok {
			t.Errorf("kernel %s was not run", n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-13s worst |cuda−go|/(1+|go|) = %.2g", n, worst[n])
	}
}

// TestCUDAHostShim: the CPU execution of CUDA source exposes what a GPU would (a missing
// barrier, shared memory read before any thread wrote it, a barrier not every thread reaches,
// a write past a buffer), and runs a correct block reduction right.
func TestCUDAHostShim(t *testing.T) {
	clang := findClang(t)
	src, err := os.ReadFile(filepath.Join("testdata", "shim_check.cu"))
	if err != nil {
		t.Fatal(err)
	}
	kernels := map[string][]Kind{}
	for _, n := range []string{"good_sum", "racy_sum", "uninit_sum", "divergent_sum", "overrun"} {
		kernels[n] = []Kind{FloatPtr, FloatPtr}
	}
	dev, err := openCPUCUDA(compileForCPU(t, clang, "shim_check.cu", string(src), kernels), kernels)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	const blocks, threads = 4, 256
	x := make([]float32, blocks*threads)
	want := make([]float32, blocks)
	for i := range x {
		x[i] = float32(i%7) - 2
		want[i/threads] += x[i]
	}
	run := func(name string) ([]float32, error) {
		xp, _ := dev.Alloc(len(x))
		op, _ := dev.Alloc(blocks)
		defer dev.Free(xp)
		defer dev.Free(op)
		if err := dev.Write(xp, x); err != nil {
			return nil, err
		}
		if err := dev.Launch(name, Grid{Blocks: blocks, Threads: threads}, op, xp); err != nil {
			return nil, err
		}
		out := make([]float32, blocks)
		return out, dev.Read(out, op)
	}
	got, err := run("good_sum")
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("good_sum: %v, %v; want %v", got, err, want)
	}
	if got, err := run("racy_sum"); err == nil && slices.Equal(got, want) {
		t.Errorf("racy_sum (no __syncthreads) gave the right sums %v", got)
	}
	if got, err := run("uninit_sum"); err != nil || !math.IsNaN(float64(got[0])) {
		t.Errorf("uninit_sum (shared memory half unwritten): %v, %v; want NaN", got, err)
	}
	if _, err := run("divergent_sum"); err == nil || !strings.Contains(err.Error(), "divergent") {
		t.Errorf("divergent_sum: %v, want a divergent __syncthreads", err)
	}
	if _, err := run("overrun"); err == nil || !strings.Contains(err.Error(), "outside buffer") {
		t.Errorf("overrun: %v, want a write outside its buffer", err)
	}
}
