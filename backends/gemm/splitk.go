package gemm

import (
	"sync"

	"gonum.org/v1/gonum/blas"

	"windtunnel/backends/par"
)

// splitByK reports whether a product is split along its inner dimension: when k is at least
// 4·max(m, n) (weight gradients, k = batch·length) C is small, and splitting its rows or
// columns would make every block pack the whole of the other, large operand again (at the
// paper's size ~36 MB of redundant packing a gradient product). Partial products of at most
// 2^20 elements each are summed instead.
func splitByK(m, n, k int) bool {
	return k >= 4*max(m, n) && m*n <= 1<<20
}

// scratch holds the partial products of k-split calls, reused so a steady training step
// allocates nothing for them. Concurrent products take separate buffers.
type scratch[T float] struct {
	mu   sync.Mutex
	free [][]T
}

func (s *scratch[T]) get(n int) []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, b := range s.free {
		if cap(b) >= n {
			s.free = append(s.free[:i], s.free[i+1:]...)
			return b[:n]
		}
	}
	return make([]T, n)
}

func (s *scratch[T]) put(b []T) {
	s.mu.Lock()
	s.free = append(s.free, b)
	s.mu.Unlock()
}

// splitBlocksK is how many blocks of k per worker a k-split product is dealt in: each
// block costs a partial product to sum, so fewer than a row split's (eight measured 146
// against 156 GFLOP/s for 192×768×9472 on 2 cores).
const splitBlocksK = 3

// splitGemmK computes the product in blocks of k, splitBlocksK per worker, dealt from a shared
// counter as splitGemm deals its blocks. Block i writes α·A[:, Kᵢ]·B[Kᵢ, :] into its own m×n
// buffer; C = β·C + the blocks' sum, added in block order, so the result depends only on the
// sizes, never on which goroutine computed which block.
func splitGemmK[T float](workers int, s *scratch[T], f gemmFunc[T], tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	nblocks := max(1, min(workers*splitBlocksK, k/minSplitRows))
	chunk := (k + nblocks - 1) / nblocks
	nblocks = (k + chunk - 1) / chunk
	mn := m * n
	buf := s.get(nblocks * mn)
	defer s.put(buf)
	run := func(i int) {
		lo, hi := i*chunk, min((i+1)*chunk, k)
		aOff := lo // columns lo.. of A (m×k)
		if tA != blas.NoTrans {
			aOff = lo * lda // rows lo.. of the stored k×m A
		}
		bOff := lo * ldb // rows lo.. of B (k×n)
		if tB != blas.NoTrans {
			bOff = lo // columns lo.. of the stored n×k B
		}
		f(tA, tB, m, n, hi-lo, alpha, a[aOff:], lda, b[bOff:], ldb, 0, buf[i*mn:(i+1)*mn], n)
	}
	pool := par.Pool{Workers: workers}
	pool.Each(nblocks, func(_, i int) { run(i) })
	// Sum the partial products, in blocks of rows of C dealt to the workers when there is
	// enough to sum; each element is summed in block order either way.
	if m*n*nblocks < sumSplitMin {
		sumPartials(c, ldc, beta, buf, m, n, nblocks, 0, m)
		return
	}
	rowsPer := max(1, (m+workers*maxSplitBlocks-1)/(workers*maxSplitBlocks))
	pool.Each((m+rowsPer-1)/rowsPer, func(_, i int) {
		sumPartials(c, ldc, beta, buf, m, n, nblocks, i*rowsPer, min(m, (i+1)*rowsPer))
	})
}

// sumSplitMin is the number of partial-product elements from which their sum is split over
// the workers (192×768 weight gradients in 6 blocks sum 885K).
const sumSplitMin = 1 << 16

// sumPartials sets rows [lo, hi) of C to β·C plus the nblocks m×n partial products in buf,
// added in block order.
func sumPartials[T float](c []T, ldc int, beta T, buf []T, m, n, nblocks, lo, hi int) {
	mn := m * n
	for r := lo; r < hi; r++ {
		cr := c[r*ldc : r*ldc+n]
		if beta == 0 {
			clear(cr)
		} else if beta != 1 {
			for j := range cr {
				cr[j] *= beta
			}
		}
		for b := 0; b < nblocks; b++ {
			for j, v := range buf[b*mn+r*n : b*mn+(r+1)*n] {
				cr[j] += v
			}
		}
	}
}
