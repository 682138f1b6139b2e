package gemm

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"windtunnel/backends/fpu"
	"windtunnel/backends/par"
)

// Blocking of the Go backend's float32 products (see pack.go for the panel layouts):
// op(B) is packed once, in blocks of kc along k cut into slivers of 16 columns, shared by
// every worker, and C is dealt in jobs of mcBlock rows by up to ncSlivers B slivers, each
// running through the k blocks in order, packing its rows of A (6×kc slivers) into its
// worker's scratch or, untransposed, reading them in place. A B sliver (16 KB at kc = 256)
// stays in L1 while the job's A block (96 KB) streams from L2.
const (
	mr      = 6   // rows of the micro-kernel's tile
	nr      = 16  // columns of the micro-kernel's tile
	kcBlock = 256 // k block
	mcBlock = 96  // rows of A packed by one job (a multiple of mr)
	// jobsPerWorker is how many jobs a worker is dealt at least, so that one whose core is
	// briefly taken is covered by the others.
	jobsPerWorker = 4
	// minPackWork is the fewest elements one packing task copies (64 KB).
	minPackWork = 1 << 14
	// maxPackedB is the most elements of packed B held at once (4 MiB, in L3): within it,
	// all of k is packed before any product, and each job keeps its block of C in cache
	// while it runs through every k block; longer products (weight gradients) pack B a
	// chunk of k blocks at a time.
	maxPackedB = 1 << 20
	// maxCols is the widest panel of C computed in one pass (packed B is then at most
	// maxCols × kcBlock elements when k is longer than maxPackedB allows).
	maxCols = 4096
	// ncSlivers is the most B slivers (16 columns each) in one job, so that the job's block
	// of C (mcBlock × 256: 96 KB) stays in L2 through the k blocks.
	ncSlivers = 16
)

// goBackend multiplies float32 matrices with packed panels and an assembly micro-kernel
// (Go's own where the CPU lacks AVX2 and FMA), split over workers goroutines; float64
// products are gonum's.
type goBackend struct {
	gonum.Implementation
	kern kernel
	// packAll packs untransposed A even where the kernel can read it in place (tests and
	// benchmarks compare the two paths).
	packAll bool
	workers int
	minWork int // m·n·k below which a product runs on the calling goroutine
	// maxPacked is the most elements of packed B held at once (maxPackedB; tests lower it).
	maxPacked int
	packB     *scratch[float32]
	packA     *scratch[float32]
}

// Go returns the backend whose float32 products are the project's own GEMM with the best
// micro-kernel this CPU runs, on one goroutine (Parallel sets the worker count); its float64
// products are gonum's.
func Go() Backend { return newGoBackend(bestKernel(), 1) }

func newGoBackend(k kernel, workers int) *goBackend {
	return &goBackend{kern: k, workers: max(1, workers), minWork: parallelMinWork, maxPacked: maxPackedB,
		packA: new(scratch[float32]), packB: new(scratch[float32])}
}

// withWorkers returns a copy that splits large products over w goroutines, sharing the
// scratch buffers.
func (g *goBackend) withWorkers(w int) *goBackend {
	c := *g
	c.workers = max(1, w)
	return &c
}

func (g *goBackend) Name() string {
	if g.workers == 1 {
		return fmt.Sprintf("go (%s)", g.kern.name)
	}
	return fmt.Sprintf("go (%s), split over %d goroutines", g.kern.name, g.workers)
}

// Kernel names the micro-kernel the backend chose for this CPU, e.g. "avx2+fma 6×16".
func (g *goBackend) Kernel() string { return g.kern.name }

// KernelOf returns the micro-kernel of the Go backend under b (looking through Parallel and
// FullBLAS); ok is false for other backends.
func KernelOf(b Backend) (name string, ok bool) {
	if g, ok := unwrap(b).(*goBackend); ok {
		return g.kern.name, true
	}
	return "", false
}

// Sgemm computes C = alpha·op(A)·op(B) + beta·C. Every element of C is computed by the
// same sequence of operations whatever the worker count: its k blocks in order, each summed
// by the micro-kernel in k order, so results are bit-identical for any number of workers.
func (g *goBackend) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !CheckGemm(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc) {
		return
	}
	if alpha == 0 || k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	defer fpu.Restore(fpu.FlushSubnormals()) // a subnormal costs ~100 cycles a multiply: package fpu
	aT, bT := tA != blas.NoTrans, tB != blas.NoTrans
	// Wide products run in panels of maxCols columns, so that the packed B stays bounded;
	// each element of C is computed as it would be in one call.
	for j0 := 0; j0 < n; j0 += maxCols {
		bOff := j0
		if bT {
			bOff = j0 * ldb
		}
		g.sgemm(aT, bT, m, min(maxCols, n-j0), k, alpha, a, lda, b[bOff:], ldb, beta, c[j0:], ldc)
	}
}

// sgemm is Sgemm on checked arguments, alpha ≠ 0, k > 0 and n ≤ maxCols.
func (g *goBackend) sgemm(aT, bT bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	workers := g.workers
	if float64(m)*float64(n)*float64(k) < float64(g.minWork) {
		workers = 1
	}
	pool := par.Pool{Workers: workers}
	kc := min(k, kcBlock)
	nSlivers := (n + nr - 1) / nr
	// B is packed a chunk of k blocks at a time: all of k where op(B) packs into
	// maxPackedB elements, so that each job keeps its block of C in cache over every k block.
	chunk := max(kc, min(k, g.maxPacked/(nSlivers*nr))/kcBlock*kcBlock)
	pb := g.packB.get(nSlivers * nr * chunk)
	defer g.packB.put(pb)
	mcRows := min(mcBlock, (m+mr-1)/mr*mr)
	perWorker := mcRows*kc + mr*nr // a block of A and an edge tile
	pa := g.packA.get(workers * perWorker)
	defer g.packA.put(pa)

	// Jobs: row blocks of C by groups of at most ncSlivers B slivers, smaller groups when
	// there are too few jobs for the workers.
	rowBlocks := (m + mcRows - 1) / mcRows
	colGroups := (nSlivers + ncSlivers - 1) / ncSlivers
	if workers > 1 && rowBlocks*colGroups < jobsPerWorker*workers {
		colGroups = min(nSlivers, (jobsPerWorker*workers+rowBlocks-1)/rowBlocks)
	}
	perGroup := (nSlivers + colGroups - 1) / colGroups
	if g.kern.pair != nil && perGroup%2 == 1 && perGroup < nSlivers {
		perGroup++ // whole pairs of slivers, for the pair kernel
	}
	colGroups = (nSlivers + perGroup - 1) / perGroup
	// inPlace is whether whole slivers of A are read in place rather than packed.
	inPlace := !aT && g.kern.rows != nil && !g.packAll
	// pairs is whether two whole B slivers side by side run as one tile of the pair kernel.
	pairs := g.kern.pair != nil && (!inPlace || g.kern.pairRows != nil)
	// With several groups of columns, A is packed once for all of them, beside B (the
	// chunk's k blocks of it, block p0 at (p0−q0)·mPad, its sliver at row r kb·r further).
	mPad := (m + mr - 1) / mr * mr
	var sa []float32
	if colGroups > 1 && !inPlace {
		sa = g.packA.get(mPad * chunk)
		defer g.packA.put(sa)
	}

	for q0 := 0; q0 < k; q0 += chunk {
		qk := min(chunk, k-q0)
		// Pack the chunk's k blocks of B: block p0 (kb rows) at offset (p0−q0)·nSlivers·nr,
		// its sliver s kb·nr further per sliver.
		blocks := (qk + kcBlock - 1) / kcBlock
		// B untransposed is packed by rows (each row of b read once, into every sliver), in
		// parts of a k block so that every worker has some; transposed, by slivers.
		parts := 1
		if !bT {
			kb0 := min(kcBlock, qk)
			parts = max(1, min((kb0*n+minPackWork-1)/minPackWork, (workers*jobsPerWorker+blocks-1)/blocks))
		}
		bTasks := nSlivers * blocks
		if !bT {
			bTasks = parts * blocks
		}
		total := bTasks
		if sa != nil {
			total += rowBlocks * blocks
		}
		packJobs := min(total, workers*jobsPerWorker)
		if packed := qk * (n + len(sa)/max(chunk, 1)); packed < 2*minPackWork {
			packJobs = 1 // too little to copy to be worth waking another worker
		}
		pool.Each(packJobs, func(_, i int) {
			per := (total + packJobs - 1) / packJobs
			for t := i * per; t < min(total, (i+1)*per); t++ {
				if t >= bTasks { // a row block of A
					blk, rb := (t-bTasks)/rowBlocks, (t-bTasks)%rowBlocks
					p0, i0 := q0+blk*kcBlock, rb*mcRows
					kb, mb := min(kcBlock, k-p0), min(mcRows, m-i0)
					off := (p0-q0)*mPad + i0*kb
					packABlock(sa[off:off+(mb+mr-1)/mr*mr*kb], aT, a, lda, i0, mb, p0, kb)
					continue
				}
				if !bT {
					blk, part := t/parts, t%parts
					p0 := q0 + blk*kcBlock
					kb := min(kcBlock, k-p0)
					off := (p0 - q0) * nSlivers * nr
					per := (kb + parts - 1) / parts
					if l0 := part * per; l0 < kb {
						packBRows(pb[off:off+nSlivers*nr*kb], b, ldb, n, p0, kb, l0, min(kb, l0+per))
					}
					continue
				}
				blk, s := t/nSlivers, t%nSlivers
				p0 := q0 + blk*kcBlock
				kb := min(kcBlock, k-p0)
				off := (p0 - q0) * nSlivers * nr
				packBSliverT(pb[off+s*nr*kb:off+(s+1)*nr*kb], b, ldb, s*nr, min(nr, n-s*nr), p0, kb)
			}
		})
		pool.Each(rowBlocks*colGroups, func(w, job int) {
			rb, cg := job/colGroups, job%colGroups
			i0 := rb * mcRows
			mb := min(mcRows, m-i0)
			ws := pa[w*perWorker : (w+1)*perWorker]
			edge := ws[mcRows*kc:]
			whole := 0 // rows of the block read in place; the rest is packed
			if inPlace {
				whole = mb / mr * mr
			}
			for p0 := q0; p0 < q0+qk; p0 += kcBlock {
				kb := min(kcBlock, k-p0)
				bt := beta
				if p0 > 0 {
					bt = 1
				}
				ablk := ws[:(mb+mr-1)/mr*mr*kb]
				if sa != nil {
					off := (p0-q0)*mPad + i0*kb
					ablk = sa[off : off+(mb+mr-1)/mr*mr*kb]
				} else {
					packABlock(ablk[whole*kb:], aT, a, lda, i0+whole, mb-whole, p0, kb)
				}
				off := (p0 - q0) * nSlivers * nr
				end := min(nSlivers, (cg+1)*perGroup)
				for s := cg * perGroup; s < end; s++ {
					j0 := s * nr
					nb := min(nr, n-j0)
					if pairs && s+1 < end && n-j0 >= 2*nr {
						var ain []float32 // rows read in place
						if whole > 0 {
							ain = a[i0*lda+p0:]
						}
						g.pairTiles(kb, ain, lda, ablk, pb[off+s*nr*kb:off+(s+2)*nr*kb], c[i0*ldc+j0:], ldc, mb, whole, alpha, bt, edge)
						s++
						continue
					}
					bs := pb[off+s*nr*kb : off+(s+1)*nr*kb]
					for r := 0; r < mb; r += mr {
						cr := c[(i0+r)*ldc+j0:]
						if r < whole {
							ar := a[(i0+r)*lda+p0:]
							if nb == nr {
								g.kern.rows(kb, ar, lda, bs, cr, ldc, alpha, bt)
							} else {
								g.kern.rows(kb, ar, lda, bs, edge, nr, 1, 0)
								storeEdge(edge, cr, ldc, mr, nb, alpha, bt)
							}
							continue
						}
						g.kern.tile(kb, ablk[r*kb:(r+mr)*kb], bs, cr, ldc, min(mr, mb-r), nb, alpha, bt, edge)
					}
				}
			}
		})
	}
}

// pairTiles computes the block's mb rows of two whole B slivers (bs, 2·nr·kb elements) into
// c (the block's first row and column): the first whole rows read from a in place (lda), the
// rest from the packed slivers in ablk (at row·kb), the last partial sliver as two edge tiles.
func (g *goBackend) pairTiles(kb int, a []float32, lda int, ablk, bs, c []float32, ldc, mb, whole int, alpha, beta float32, edge []float32) {
	for r := 0; r < mb; r += mr {
		cr := c[r*ldc:]
		switch {
		case r < whole:
			g.kern.pairRows(kb, a[r*lda:], lda, bs, nr*kb, cr, ldc, alpha, beta)
		case mb-r >= mr:
			g.kern.pair(kb, ablk[r*kb:(r+mr)*kb], bs, nr*kb, cr, ldc, alpha, beta)
		default:
			as := ablk[r*kb : (r+mr)*kb]
			g.kern.tile(kb, as, bs[:nr*kb], cr, ldc, mb-r, nr, alpha, beta, edge)
			g.kern.tile(kb, as, bs[nr*kb:], cr[nr:], ldc, mb-r, nr, alpha, beta, edge)
		}
	}
}
