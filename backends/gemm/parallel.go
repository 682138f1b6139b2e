package gemm

import (
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/par"
)

// A split product is dealt in blocks of rows or columns: minSplitBlocks to maxSplitBlocks
// per worker, as many as keep each block's work m·n·k at least minBlockWork, and no block
// edge under minSplitRows. Eight blocks a worker, against three, took the paper's
// 9472×192×192 forward product from 134–169 to 145–190 GFLOP/s on 2 cores (BenchmarkSgemm,
// 4 interleaved runs each): smaller blocks keep a block's rows of A and C in cache, and the
// last block leaves the other core idle for less time. Products of a few million
// multiply-adds keep three blocks a worker, which measured best for them.
const (
	minSplitBlocks = 3
	maxSplitBlocks = 8
	minBlockWork   = 2 << 20
	minSplitRows   = 16
)

// splitBlocks is how many blocks a product of m·n·k multiply-adds is split into.
func splitBlocks(workers, m, n, k int) int {
	per := int(min(float64(maxSplitBlocks), float64(m)*float64(n)*float64(k)/float64(workers*minBlockWork)))
	return workers * max(minSplitBlocks, per)
}

// parallelMinWork is the size m·n·k below which Parallel runs a product
// directly on the calling goroutine. Waking the second core costs tens of
// microseconds on the 2-vCPU target, so splitting pays only for products
// that take about 100 µs or more on one core. With OpenBLAS's AVX2 kernels
// (~105 GFLOP/s single-threaded) two blocks lost up to 160³ (4.1M), broke
// even around 5M and won from 192³ (7.1M, 1.1–1.3×) and 2368×64×64 (9.7M,
// 1.3–1.4×); see BenchmarkSgemmSmall.
const parallelMinWork = 6 << 20

// parallelMinWorkAVX512 is parallelMinWork for OpenBLAS's AVX-512 kernels
// (~200 GFLOP/s single-threaded), which broke even around 10M (2368×64×64:
// 0.92–0.97×) and won from 16.8M (256³: 1.1–1.3×).
const parallelMinWorkAVX512 = 12 << 20

// Parallel wraps b so that large products are split into row (or column) blocks computed concurrently on `workers` goroutines, each calling b; small products run directly.
//
// workers < 1 means runtime.GOMAXPROCS(0). With one worker, or for gonum's
// backend (which already parallelises large products internally), b is
// returned unchanged; the Go backend splits its own products (sharing packed panels
// between the workers) and is returned with its worker count set. The inner backend must be safe for concurrent use on
// disjoint parts of C, as OpenBLAS and gonum are.
func Parallel(b Backend, workers int) Backend {
	b = unwrap(b)
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if g, ok := b.(*goBackend); ok {
		return g.withWorkers(workers)
	}
	if _, ok := b.(gonumBackend); ok || workers == 1 {
		return b
	}
	minWork := parallelMinWork
	if o, ok := b.(*openBLAS); ok {
		minWork = o.splitMinWork
	}
	return &parallel{b: b, workers: workers, minWork: minWork}
}

// unwrap returns the backend under b's Parallel and FullBLAS wrappers.
func unwrap(b Backend) Backend {
	for {
		switch w := b.(type) {
		case *parallel:
			b = w.b
		case *FullBLAS:
			b = w.b
		default:
			return b
		}
	}
}

type parallel struct {
	b       Backend
	workers int
	minWork int // m·n·k below which the product runs directly
	// Per-block partial products of k-split products, reused between calls.
	scratch32 scratch[float32]
	scratch64 scratch[float64]
}

func (p *parallel) Name() string {
	return fmt.Sprintf("%s, split over %d goroutines", p.b.Name(), p.workers)
}

func (p *parallel) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !p.split(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc, alpha == 0) {
		p.b.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if splitByK(m, n, k) {
		splitGemmK(p.workers, &p.scratch32, p.b.Sgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	splitGemm(p.workers, p.b.Sgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (p *parallel) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !p.split(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc, alpha == 0) {
		p.b.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if splitByK(m, n, k) {
		splitGemmK(p.workers, &p.scratch64, p.b.Dgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	splitGemm(p.workers, p.b.Dgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// split validates the arguments (so that a bad call panics on the caller's
// goroutine with gonum's message) and reports whether the product is worth
// splitting.
func (p *parallel) split(tA, tB blas.Transpose, m, n, k, lenA, lda, lenB, ldb, lenC, ldc int, alphaZero bool) bool {
	if !CheckGemm(tA, tB, m, n, k, lenA, lda, lenB, ldb, lenC, ldc) || alphaZero || k == 0 {
		return false
	}
	if max(m, n) < 2 {
		return false
	}
	// Compare in float64: m·n·k can overflow int on 32-bit platforms.
	return float64(m)*float64(n)*float64(k) >= float64(p.minWork)
}

type gemmFunc[T float] func(tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int)

// splitGemm computes the product in blocks of rows of C (when m >= n) or of
// columns of C (splitBlocks says how many), dealt from a shared counter to the
// calling goroutine and workers−1 new ones (par.Pool.Each): a worker whose core is briefly
// taken by another process (a dashboard, a terminal) computes fewer blocks
// instead of holding up the product. The blocks write disjoint parts of C and
// their boundaries depend only on the sizes, so results do not depend on
// which goroutine computes which block.
func splitGemm[T float](workers int, f gemmFunc[T], tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	byRows := m >= n
	dim, align := n, 16 // columns: keep block edges on 64-byte boundaries of float32 rows
	if byRows {
		dim, align = m, 4
	}
	blocks := splitBlocks(workers, m, n, k)
	chunk := (dim + blocks - 1) / blocks
	if chunk > align {
		chunk = (chunk + align - 1) / align * align
	}
	chunk = max(chunk, min(dim, minSplitRows))
	run := func(lo, hi int) {
		if byRows {
			aOff := lo * lda // rows lo.. of A
			if tA != blas.NoTrans {
				aOff = lo // columns lo.. of the stored k×m A
			}
			f(tA, tB, hi-lo, n, k, alpha, a[aOff:], lda, b, ldb, beta, c[lo*ldc:], ldc)
			return
		}
		bOff := lo // columns lo.. of B
		if tB != blas.NoTrans {
			bOff = lo * ldb // rows lo.. of the stored n×k B
		}
		f(tA, tB, m, hi-lo, k, alpha, a, lda, b[bOff:], ldb, beta, c[lo:], ldc)
	}
	// A remainder under a quarter block joins the last block rather than being a call of
	// its own.
	nblocks := dim / chunk
	if rem := dim - nblocks*chunk; rem > 0 && (nblocks == 0 || 4*rem >= chunk) {
		nblocks++
	}
	par.Pool{Workers: workers}.Each(nblocks, func(_, i int) {
		lo, hi := i*chunk, (i+1)*chunk
		if i == nblocks-1 {
			hi = dim
		}
		run(lo, hi)
	})
}
