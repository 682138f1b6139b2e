package gemm

import (
	"sync"

	"gonum.org/v1/gonum/blas"
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

// splitGemmK computes the product in blocks of k, splitBlocks per worker, dealt from a shared
// counter as splitGemm deals its blocks. Block i writes α·A[:, Kᵢ]·B[Kᵢ, :] into its own m×n
// buffer; C = β·C + the blocks' sum, added in block order, so the result depends only on the
// sizes, never on which goroutine computed which block.
func splitGemmK[T float](workers int, s *scratch[T], f gemmFunc[T], tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	nblocks := max(1, min(workers*splitBlocks, k/minSplitRows))
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
	deal(workers, nblocks, run)
	for r := 0; r < m; r++ {
		cr := c[r*ldc : r*ldc+n]
		if beta == 0 {
			clear(cr)
		} else if beta != 1 {
			for j := range cr {
				cr[j] *= beta
			}
		}
		for i := 0; i < nblocks; i++ {
			pr := buf[i*mn+r*n : i*mn+(r+1)*n]
			for j, v := range pr {
				cr[j] += v
			}
		}
	}
}
