package cuda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/gemm"
)

// EnvLibCUBLAS names the environment variable holding a cuBLAS library path that is tried before the default candidates.
const EnvLibCUBLAS = "WINDTUNNEL_LIBCUBLAS"

// ErrNoCUBLAS is wrapped by the error of Open and Probe when no cuBLAS library could be loaded.
var ErrNoCUBLAS = errors.New("no cuBLAS library")

// cublasSonames are the cuBLAS file names tried in each directory, newest first.
var cublasSonames = []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so"}

// CUBLASCandidates returns, in search order, the library names and paths that Open tries for cuBLAS:
// the environment override, the names the dynamic loader resolves (LD_LIBRARY_PATH, ld.so.cache),
// the CUDA toolkit and distribution directories, and the NVIDIA wheels of Python environments
// (nvidia/cu13/lib for CUDA 13, nvidia/cublas/lib for CUDA 12), which PyTorch installs.
func CUBLASCandidates() []string {
	return toolkitCandidates(EnvLibCUBLAS, cublasSonames, "libcublas.so.*", "nvidia/cu13/lib", "nvidia/cublas/lib")
}

// toolkitCandidates is the search order for one CUDA library: the path in env, the sonames as
// the dynamic loader resolves them (LD_LIBRARY_PATH, ld.so.cache), the first two sonames in the
// CUDA toolkit, distribution and $CONDA_PREFIX library folders, then the files matching
// wheelPattern in the given folders of every Python environment's site-packages.
func toolkitCandidates(env string, sonames []string, wheelPattern string, wheelSubs ...string) []string {
	var paths []string
	if p := os.Getenv(env); p != "" {
		paths = append(paths, p)
	}
	paths = append(paths, sonames...)
	dirs := []string{"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"}
	versioned, _ := filepath.Glob("/usr/local/cuda-*/lib64")
	slices.Sort(versioned)
	slices.Reverse(versioned) // newest toolkit first
	dirs = append(dirs, versioned...)
	dirs = append(dirs, "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/aarch64-linux-gnu")
	if p := os.Getenv("CONDA_PREFIX"); filepath.IsAbs(p) {
		dirs = append(dirs, filepath.Join(p, "lib"))
	}
	for _, dir := range dirs {
		for _, name := range sonames[:min(2, len(sonames))] {
			paths = append(paths, filepath.Join(dir, name))
		}
	}
	return append(paths, wheelLibs(wheelPattern, wheelSubs...)...)
}

// cublasLib holds the entry points of a loaded cuBLAS, all called through
// purego.SyscallN (every argument is an integer or a pointer).
type cublasLib struct {
	path string

	create      uintptr // cublasCreate_v2
	destroy     uintptr // cublasDestroy_v2
	sgemm       uintptr // cublasSgemm_v2
	dgemm       uintptr // cublasDgemm_v2
	setMathMode uintptr // cublasSetMathMode
	getVersion  uintptr // cublasGetVersion_v2
	setStream   uintptr // cublasSetStream_v2 (optional: the resident step needs it)
}

// loadCUBLAS loads the first candidate that opens and exports every entry
// point used. The error wraps ErrNoCUBLAS and names every path tried.
func loadCUBLAS(paths []string) (*cublasLib, error) {
	var tried []string
	for _, path := range paths {
		l, err := loadCUBLASFrom(path)
		if err == nil {
			return l, nil
		}
		tried = append(tried, triedMsg(path, err))
	}
	return nil, fmt.Errorf("cuda: load cuBLAS: tried %s (set %s to add a path): %w",
		strings.Join(tried, "; "), EnvLibCUBLAS, ErrNoCUBLAS)
}

func loadCUBLASFrom(path string) (*cublasLib, error) {
	if err := gemm.CheckLibraryPath(path); err != nil {
		return nil, err
	}
	// A cuBLAS outside the loader's search path needs its libcublasLt, which
	// sits beside it: load that first, globally, so the dependency resolves.
	if strings.Contains(path, "/") {
		if _, err := os.Stat(path); err != nil {
			return nil, err // "stat PATH: no such file or directory"
		}
		dir, base := filepath.Split(path)
		if lt := filepath.Join(dir, strings.Replace(base, "libcublas.", "libcublasLt.", 1)); lt != path {
			if _, err := os.Stat(lt); err == nil {
				_, _ = dlopen(lt, purego.RTLD_NOW|purego.RTLD_GLOBAL)
			}
		}
	}
	h, err := dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, err
	}
	l := &cublasLib{path: path}
	err = bindSymbols(h, []struct {
		name string
		fn   *uintptr
	}{
		{"cublasCreate_v2", &l.create},
		{"cublasDestroy_v2", &l.destroy},
		{"cublasSgemm_v2", &l.sgemm},
		{"cublasDgemm_v2", &l.dgemm},
		{"cublasSetMathMode", &l.setMathMode},
		{"cublasGetVersion_v2", &l.getVersion},
	})
	if err != nil {
		return nil, err
	}
	l.setStream = optionalSymbol(h, "cublasSetStream_v2")
	return l, nil
}

// cublasDefaultMath is CUBLAS_DEFAULT_MATH: FP32 products in FP32 (no TF32 tensor cores).
const cublasDefaultMath = 0

// cublasStatusNames describes the cublasStatus_t values.
var cublasStatusNames = map[int]string{
	1:  "CUBLAS_STATUS_NOT_INITIALIZED",
	3:  "CUBLAS_STATUS_ALLOC_FAILED",
	7:  "CUBLAS_STATUS_INVALID_VALUE",
	8:  "CUBLAS_STATUS_ARCH_MISMATCH",
	11: "CUBLAS_STATUS_MAPPING_ERROR",
	13: "CUBLAS_STATUS_EXECUTION_FAILED",
	14: "CUBLAS_STATUS_INTERNAL_ERROR",
	15: "CUBLAS_STATUS_NOT_SUPPORTED",
	16: "CUBLAS_STATUS_LICENSE_ERROR",
}

// checkCUBLAS turns a cublasStatus_t into nil or an *Error naming the call.
func checkCUBLAS(op string, r uintptr) error {
	code := int(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	msg, ok := cublasStatusNames[code]
	if !ok {
		msg = "unknown cuBLAS status"
	}
	return &Error{Op: op, Code: code, Msg: msg}
}

// createHandle creates a cuBLAS handle on the context current to the calling thread.
func (l *cublasLib) createHandle() (uintptr, error) {
	var h uintptr
	r, _, _ := purego.SyscallN(l.create, uintptr(unsafe.Pointer(&h)))
	return h, checkCUBLAS("cublasCreate_v2", r)
}

func (l *cublasLib) destroyHandle(h uintptr) error {
	r, _, _ := purego.SyscallN(l.destroy, h)
	return checkCUBLAS("cublasDestroy_v2", r)
}

func (l *cublasLib) setMath(h uintptr, mode int) error {
	r, _, _ := purego.SyscallN(l.setMathMode, h, uintptr(mode))
	return checkCUBLAS("cublasSetMathMode", r)
}

// version returns cublasGetVersion_v2's number, e.g. 130100 for 13.1.0.
func (l *cublasLib) version(h uintptr) (int, error) {
	var v int32
	r, _, _ := purego.SyscallN(l.getVersion, h, uintptr(unsafe.Pointer(&v)))
	return int(v), checkCUBLAS("cublasGetVersion_v2", r)
}

// cublasVersionString formats a cuBLAS version number: 130100 → "13.1.0"
// (major·10000 + minor·100 + patch since cuBLAS 11; major·1000 before).
func cublasVersionString(v int) string {
	if v >= 100000 {
		return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
}

// cublasOp maps a gonum transpose to cublasOperation_t (CUBLAS_OP_N = 0,
// CUBLAS_OP_T = 1); for real matrices ConjTrans is Trans.
func cublasOp(t blas.Transpose) uintptr {
	if t == blas.NoTrans {
		return 0
	}
	return 1
}

// gemm calls cublasSgemm_v2 (single) or cublasDgemm_v2 with the column-major
// tuple c on device matrices x (first), y (second) and out. alpha and beta
// point to host scalars of the matching precision (default pointer mode host).
func (l *cublasLib) gemm(h uintptr, single bool, c call, alpha unsafe.Pointer, x, y devPtr, beta unsafe.Pointer, out devPtr) error {
	fn, op := l.dgemm, "cublasDgemm_v2"
	if single {
		fn, op = l.sgemm, "cublasSgemm_v2"
	}
	r, _, _ := purego.SyscallN(fn, h,
		cublasOp(c.transa), cublasOp(c.transb),
		uintptr(c.m), uintptr(c.n), uintptr(c.k),
		uintptr(alpha), uintptr(x), uintptr(c.lda), uintptr(y), uintptr(c.ldb),
		uintptr(beta), uintptr(out), uintptr(c.ldc))
	return checkCUBLAS(op, r)
}

// operand names a matrix of the row-major product.
type operand byte

const (
	operandA operand = 'A'
	operandB operand = 'B'
)

// call is the argument tuple of one column-major GEMM:
// out(m×n) = alpha·op(first)·op(second) + beta·out, leading dimensions lda, ldb, ldc.
type call struct {
	transa, transb blas.Transpose // op applied to the first and the second matrix argument
	m, n, k        int
	first, second  operand // which row-major operand is passed as the first and the second matrix
	lda, ldb, ldc  int     // leading dimensions of the first and second matrix arguments and of C
}

// colMajor maps the row-major product C(m×n) = op(A)·op(B) to the column-major
// call that computes it: a row-major matrix is its transpose in column-major
// order, and Cᵀ = op(B)ᵀ·op(A)ᵀ, so B goes first with A's and B's roles, sizes
// and leading dimensions swapped, and C keeps its leading dimension.
func colMajor(tA, tB blas.Transpose, m, n, k, lda, ldb, ldc int) call {
	return call{
		transa: tB, transb: tA,
		m: n, n: m, k: k,
		first: operandB, second: operandA,
		lda: ldb, ldb: lda, ldc: ldc,
	}
}
