package models

import "sync"

// pool runs loop bodies on a fixed number of goroutines.
type pool struct{ workers int }

// rows splits [0,n) into at most p.workers contiguous blocks and runs fn on each
// concurrently; below minPer items per worker it runs fn once on the caller's goroutine.
func (p pool) rows(n, minPer int, fn func(lo, hi int)) {
	p.blocks(n, minPer, func(_, lo, hi int) { fn(lo, hi) })
}

// blocks is rows with the block's index (0 ≤ index < p.workers) passed to fn, for
// per-worker scratch.
func (p pool) blocks(n, minPer int, fn func(w, lo, hi int)) {
	w := p.workers
	if w > n/max(minPer, 1) {
		w = n / max(minPer, 1)
	}
	if w <= 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(w - 1)
	for i := 1; i < w; i++ {
		lo, hi := i*n/w, (i+1)*n/w
		go func() { defer wg.Done(); fn(i, lo, hi) }()
	}
	fn(0, 0, n/w)
	wg.Wait()
}

// each runs fn(worker, i) for i in [0,n) with items dealt out to the workers in blocks,
// so per-worker scratch can be indexed by worker.
func (p pool) each(n int, fn func(worker, i int)) {
	w := min(p.workers, n)
	if w <= 1 {
		for i := 0; i < n; i++ {
			fn(0, i)
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(w - 1)
	for k := 1; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				fn(k, i)
			}
		}()
	}
	for i := 0; i < n/w; i++ {
		fn(0, i)
	}
	wg.Wait()
}
