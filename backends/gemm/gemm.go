package gemm

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Backend multiplies row-major matrices: C = alpha·op(A)·op(B) + beta·C, with gonum's blas signatures.
type Backend interface {
	// Name describes the backend, e.g. "gonum (pure Go)".
	Name() string
	// Sgemm computes C = alpha·op(A)·op(B) + beta·C in single precision.
	Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
	// Dgemm computes C = alpha·op(A)·op(B) + beta·C in double precision.
	Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
}

// Open returns the backend named kind: "auto" (see Auto), "go" (the project's own float32
// GEMM, see Go), "openblas" (error if it does not load, naming every path tried), or "gonum".
func Open(kind string) (Backend, error) {
	switch kind {
	case "auto":
		return Auto(), nil
	case "go":
		return Go(), nil
	case "openblas":
		return openOpenBLAS()
	case "gonum":
		return Gonum(), nil
	default:
		return nil, fmt.Errorf("gemm: open %q: unknown backend kind (want auto, go, openblas or gonum)", kind)
	}
}

// ErrNotLoaded is wrapped by the error of Open("openblas") when no candidate library could be loaded.
var ErrNotLoaded = errors.New("openblas library not loaded")

// Gonum returns the pure-Go backend.
func Gonum() Backend { return gonumBackend{} }

// gonumBackend is gonum's pure-Go BLAS, which already parallelises large
// products internally.
type gonumBackend struct{ gonum.Implementation }

func (gonumBackend) Name() string { return "gonum (pure Go)" }

// float is the element type of a GEMM.
type float interface{ ~float32 | ~float64 }

// CheckGemm validates the arguments of a row-major GEMM exactly as gonum
// does (same panic messages) and reports whether there is any work to do.
// When it returns false, C needs no update at all.
func CheckGemm(tA, tB blas.Transpose, m, n, k, lenA, lda, lenB, ldb, lenC, ldc int) bool {
	switch tA {
	case blas.NoTrans, blas.Trans, blas.ConjTrans:
	default:
		panic("blas: illegal transpose")
	}
	switch tB {
	case blas.NoTrans, blas.Trans, blas.ConjTrans:
	default:
		panic("blas: illegal transpose")
	}
	if m < 0 {
		panic("blas: m < 0")
	}
	if n < 0 {
		panic("blas: n < 0")
	}
	if k < 0 {
		panic("blas: k < 0")
	}
	aTrans := tA != blas.NoTrans
	bTrans := tB != blas.NoTrans
	if (aTrans && lda < max(1, m)) || (!aTrans && lda < max(1, k)) {
		panic("blas: bad leading dimension of A")
	}
	if (bTrans && ldb < max(1, k)) || (!bTrans && ldb < max(1, n)) {
		panic("blas: bad leading dimension of B")
	}
	if ldc < max(1, n) {
		panic("blas: bad leading dimension of C")
	}
	if m == 0 || n == 0 {
		return false
	}
	if (aTrans && lenA < (k-1)*lda+m) || (!aTrans && lenA < (m-1)*lda+k) {
		panic("blas: insufficient length of a")
	}
	if (bTrans && lenB < (n-1)*ldb+k) || (!bTrans && lenB < (k-1)*ldb+n) {
		panic("blas: insufficient length of b")
	}
	if lenC < (m-1)*ldc+n {
		panic("blas: insufficient length of c")
	}
	return true
}

// scaleC sets the m×n matrix C to beta·C; with beta == 0 C is zeroed without
// being read.
func scaleC[T float](m, n int, beta T, c []T, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// Auto is the backend Open("auto") picks: the Go backend where its assembly micro-kernel
// runs, else OpenBLAS if it loads, else the Go backend with its portable kernel.
func Auto() Backend {
	g := Go()
	if k, _ := KernelOf(g); k != genericKernel.name {
		return g
	}
	if b, err := openOpenBLAS(); err == nil {
		return b
	}
	return g
}
