package models

import (
	"sync"
	"sync/atomic"
)

// pool runs loop bodies on a fixed number of goroutines.
type pool struct{ workers int }

// chunksPerWorker is how finely rows and each deal out work: with several chunks a worker,
// a worker whose core is briefly taken (by the dashboard, the session writer, the OS) is
// covered by the others instead of holding the whole step back.
const chunksPerWorker = 4

// rows splits [0,n) into contiguous chunks of at least minPer items and runs fn on them
// concurrently, the workers taking the next chunk as they finish; below 2·minPer items it
// runs fn once on the caller's goroutine. fn must not depend on which goroutine runs it.
func (p pool) rows(n, minPer int, fn func(lo, hi int)) {
	minPer = max(minPer, 1)
	w := min(p.workers, n/minPer)
	if w <= 1 {
		fn(0, n)
		return
	}
	size := max(minPer, (n+w*chunksPerWorker-1)/(w*chunksPerWorker))
	chunks := (n + size - 1) / size
	var next atomic.Int64
	work := func() {
		for c := int(next.Add(1)) - 1; c < chunks; c = int(next.Add(1)) - 1 {
			fn(c*size, min(n, (c+1)*size))
		}
	}
	var wg sync.WaitGroup
	wg.Add(w - 1)
	for i := 1; i < w; i++ {
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()
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

// each runs fn(worker, i) for i in [0,n), the workers taking the next item as they
// finish; worker (0 ≤ worker < p.workers) indexes per-worker scratch, which fn may use only
// within one item.
func (p pool) each(n int, fn func(worker, i int)) {
	w := min(p.workers, n)
	if w <= 1 {
		for i := 0; i < n; i++ {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	work := func(k int) {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			fn(k, i)
		}
	}
	var wg sync.WaitGroup
	wg.Add(w - 1)
	for k := 1; k < w; k++ {
		go func() { defer wg.Done(); work(k) }()
	}
	work(0)
	wg.Wait()
}
