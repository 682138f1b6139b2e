package par

import (
	"sync"
	"sync/atomic"

	"windtunnel/backends/fpu"
)

// Pool runs loop bodies on Workers goroutines (the caller's and Workers−1 new ones).
type Pool struct{ Workers int }

// chunksPerWorker is how finely Rows and Each deal out work: with several chunks a worker,
// a worker whose core is briefly taken (by the dashboard, the session writer, the OS) is
// covered by the others instead of holding the whole step back.
const chunksPerWorker = 4

// Rows splits [0,n) into contiguous chunks of at least minPer items and runs fn on them
// concurrently, the workers taking the next chunk as they finish; below 2·minPer items it
// runs fn once on the caller's goroutine. fn must not depend on which goroutine runs it.
func (p Pool) Rows(n, minPer int, fn func(lo, hi int)) {
	minPer = max(minPer, 1)
	w := min(p.Workers, n/minPer)
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
	mode := fpu.Current()
	for i := 1; i < w; i++ {
		spawn(&wg, mode, work)
	}
	work()
	wg.Wait()
}

// blocks is rows with the block's index (0 ≤ index < p.Workers) passed to fn, for
// per-worker scratch.
func (p Pool) Blocks(n, minPer int, fn func(w, lo, hi int)) {
	w := p.Workers
	if w > n/max(minPer, 1) {
		w = n / max(minPer, 1)
	}
	if w <= 1 {
		fn(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(w - 1)
	mode := fpu.Current()
	for i := 1; i < w; i++ {
		lo, hi := i*n/w, (i+1)*n/w
		spawn(&wg, mode, func() { fn(i, lo, hi) })
	}
	fn(0, 0, n/w)
	wg.Wait()
}

// Each runs fn(worker, i) for i in [0,n), the workers taking the next item as they
// finish; worker (0 ≤ worker < p.Workers) indexes per-worker scratch, which fn may use only
// within one item.
func (p Pool) Each(n int, fn func(worker, i int)) {
	w := min(p.Workers, n)
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
	mode := fpu.Current()
	for k := 1; k < w; k++ {
		spawn(&wg, mode, func() { work(k) })
	}
	work(0)
	wg.Wait()
}

// spawn runs fn on a new goroutine in the caller's floating-point mode (a caller that
// flushes subnormals to zero has its workers flush them too: backends/fpu), then marks wg
// done.
func spawn(wg *sync.WaitGroup, mode fpu.Mode, fn func()) {
	go func() {
		defer wg.Done()
		if mode.Flushing() {
			defer fpu.Restore(fpu.FlushSubnormals())
		}
		fn()
	}()
}
