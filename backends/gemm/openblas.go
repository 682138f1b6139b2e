package gemm

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/fpu"
)

// EnvOpenBLAS names the environment variable holding an OpenBLAS library
// path that is tried before the default candidates: an absolute path, or a bare library
// name (no slash) that dlopen looks up itself. A relative path with a slash is refused
// (see CheckLibraryPath).
const EnvOpenBLAS = "WINDTUNNEL_OPENBLAS"

// CheckLibraryPath refuses a library path that would be resolved against the current
// directory (a relative path with a slash: "./libopenblas.so", "lib/libopenblas.so"), so
// that running windtunnel in a directory someone else controls cannot load code from it.
// Absolute paths are used as given; a bare name (no slash) goes through dlopen's own
// search (LD_LIBRARY_PATH, the ld.so cache, the system library directories), which never
// includes the current directory unless LD_LIBRARY_PATH names it.
func CheckLibraryPath(path string) error {
	if strings.ContainsRune(path, '/') && !filepath.IsAbs(path) {
		return fmt.Errorf("%s: refused: a relative path (libraries are loaded from system paths, absolute paths or bare names only)", path)
	}
	return nil
}

// OpenBLASCandidates returns, in search order, the library names and paths that Open tries
// for OpenBLAS: the one EnvOpenBLAS names, then bare names and system paths.
func OpenBLASCandidates() []string {
	var paths []string
	if p := os.Getenv(EnvOpenBLAS); p != "" {
		paths = append(paths, p)
	}
	return append(paths,
		"libopenblas.so.0",
		"libopenblas.so",
		"/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
		"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
		"/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
		"/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
		"/usr/lib64/libopenblas.so.0",
	)
}

// openBLAS calls sgemm_ and dgemm_ of a dynamically loaded
// OpenBLAS. Integer arguments are passed as pointers to int32: the LP64
// blasint of Debian's libopenblas0 (an ILP64 build would need int64).
type openBLAS struct {
	name string
	lib  Library
	// splitMinWork is Parallel's m·n·k threshold for this library's kernels.
	splitMinWork int
	// sgemm and dgemm are the Fortran-interface entry points (sgemm_, dgemm_): every
	// argument is a pointer, so they are called through purego.SyscallN without the
	// reflection (and the allocations) that purego.RegisterFunc needs for float arguments.
	sgemm, dgemm uintptr
	args         sync.Pool
}

// f77Args holds the by-reference scalar arguments of one Fortran GEMM call. It lives on the
// heap (from a pool), so its address is stable while C reads it.
type f77Args struct {
	ta, tb                 byte
	m, n, k, lda, ldb, ldc int32
	alpha, beta            float64 // hold a float32 or a float64 in their first bytes
}

func f77Trans(t blas.Transpose) byte {
	if t == blas.NoTrans {
		return 'N'
	}
	return 'T'
}

// prepare fills the pooled arguments of the column-major call that computes the row-major
// product: C = op(A)·op(B) row-major is Cᵀ = op(B)ᵀ·op(A)ᵀ column-major, so A and B swap.
func (o *openBLAS) prepare(tA, tB blas.Transpose, m, n, k, lda, ldb, ldc int) *f77Args {
	p, _ := o.args.Get().(*f77Args)
	if p == nil {
		p = new(f77Args)
	}
	p.ta, p.tb = f77Trans(tB), f77Trans(tA)
	p.m, p.n, p.k = int32(n), int32(m), int32(k)
	p.lda, p.ldb, p.ldc = int32(ldb), int32(lda), int32(ldc)
	return p
}

// openOpenBLAS loads the first OpenBLAS candidate that opens and exports
// sgemm_ and dgemm_, and sets OpenBLAS to one thread. Loading the
// same library again returns the already loaded one, so this is idempotent.
func openOpenBLAS() (*openBLAS, error) { return openOpenBLASFrom(OpenBLASCandidates()) }

func openOpenBLASFrom(paths []string) (*openBLAS, error) {
	var tried []string
	for _, path := range paths {
		if err := CheckLibraryPath(path); err != nil {
			tried = append(tried, err.Error())
			continue
		}
		b, err := loadOpenBLAS(path)
		if err == nil {
			return b, nil
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, path+":") { // dlerror usually names the path already
			msg = path + ": " + msg
		}
		tried = append(tried, msg)
	}
	return nil, fmt.Errorf("gemm: open openblas: %w; tried (set %s to add a path) %s",
		ErrNotLoaded, EnvOpenBLAS, strings.Join(tried, "; "))
}

// Dlopen is purego.Dlopen on one OS thread: dlopen's failure is read by a second C call,
// dlerror, whose message is the calling thread's, so a goroutine that moved between the two
// read another thread's (often empty) message. Every library the project loads goes through
// it (backends/libc, a leaf, locks its own one call the same way).
func Dlopen(path string, mode int) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(path, mode)
}

func loadOpenBLAS(path string) (b *openBLAS, err error) {
	// purego panics rather than returning errors for some malformed
	// libraries; turn that into an error for this candidate.
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("%v", r)
		}
	}()
	h, err := Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err
	}
	// The handle is never closed: the library stays loaded for the life of
	// the process, and a later Dlopen of it only bumps its reference count.
	sym := func(name string) uintptr {
		p, err := purego.Dlsym(h, name)
		if err != nil {
			return 0
		}
		return p
	}
	sg, dg := sym("sgemm_"), sym("dgemm_")
	if sg == 0 || dg == 0 {
		return nil, errors.New("no sgemm_/dgemm_ symbol (not a BLAS library)")
	}
	b = &openBLAS{sgemm: sg, dgemm: dg}

	threads := 1
	if p := sym("openblas_set_num_threads"); p != 0 {
		var set func(int32)
		purego.RegisterFunc(&set, p)
		set(1)
	}
	if p := sym("openblas_get_num_threads"); p != 0 {
		var get func() int32
		purego.RegisterFunc(&get, p)
		threads = int(get())
	}
	version := "(unknown version)"
	if p := sym("openblas_get_config"); p != 0 {
		var config func() string
		purego.RegisterFunc(&config, p)
		// e.g. "OpenBLAS 0.3.21 NO_AFFINITY Zen MAX_THREADS=64"
		if f := strings.Fields(config()); len(f) >= 2 && strings.EqualFold(f[0], "OpenBLAS") {
			version = f[1]
		}
	}
	if p := sym("openblas_get_corename"); p != 0 {
		var core func() string
		purego.RegisterFunc(&core, p)
		if c := strings.TrimSpace(core()); c != "" {
			version += " " + c
		}
	}
	file := path
	if f := mappedFile(sg); f != "" {
		file = f
	}
	plural := "s"
	if threads == 1 {
		plural = ""
	}
	b.name = fmt.Sprintf("openblas %s (%s), %d thread%s", version, file, threads, plural)
	b.lib = Library{Name: "openblas", Version: version, Path: file, Threads: threads}
	// OpenBLAS picks its kernels at load time (OPENBLAS_CORETYPE overrides
	// the detection); faster kernels need larger products to gain from
	// splitting.
	b.splitMinWork = parallelMinWork
	for _, fast := range []string{"skylakex", "cooperlake", "sapphirerapids", "zen4", "zen5"} {
		if strings.Contains(strings.ToLower(version), fast) {
			b.splitMinWork = parallelMinWorkAVX512
		}
	}
	return b, nil
}

// mappedFile returns the file mapped at address addr according to
// /proc/self/maps, or "" when that is unavailable.
func mappedFile(addr uintptr) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "start-end perms offset dev inode path"
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil && uint64(addr) >= start && uint64(addr) < end {
			return strings.Join(fields[5:], " ")
		}
	}
	return ""
}

func (o *openBLAS) Name() string { return o.name }

// checkInt32 panics if any size does not fit OpenBLAS's 32-bit blasint.
func checkInt32(vals ...int) {
	for _, v := range vals {
		if v > math.MaxInt32 {
			panic("gemm: matrix dimension or leading dimension exceeds OpenBLAS's 32-bit integer range")
		}
	}
}

func (o *openBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	defer fpu.Restore(fpu.FlushSubnormals()) // as the Go kernels: package fpu
	f77Gemm(o, o.sgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (o *openBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	f77Gemm(o, o.dgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// f77Gemm checks the arguments and calls the Fortran GEMM fn (sgemm_ or dgemm_, matching T).
func f77Gemm[T float](o *openBLAS, fn uintptr, tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if !CheckGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		return
	}
	if alpha == 0 || k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	checkInt32(m, n, k, lda, ldb, ldc)
	p := o.prepare(tA, tB, m, n, k, lda, ldb, ldc)
	*(*T)(unsafe.Pointer(&p.alpha)) = alpha
	*(*T)(unsafe.Pointer(&p.beta)) = beta
	purego.SyscallN(fn,
		uintptr(unsafe.Pointer(&p.ta)), uintptr(unsafe.Pointer(&p.tb)),
		uintptr(unsafe.Pointer(&p.m)), uintptr(unsafe.Pointer(&p.n)), uintptr(unsafe.Pointer(&p.k)),
		uintptr(unsafe.Pointer(&p.alpha)), uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&p.lda)),
		uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&p.ldb)),
		uintptr(unsafe.Pointer(&p.beta)), uintptr(unsafe.Pointer(&c[0])), uintptr(unsafe.Pointer(&p.ldc)))
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(c)
	o.args.Put(p)
}
