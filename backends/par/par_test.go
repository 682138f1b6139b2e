package par

import (
	"sync"
	"testing"

	"windtunnel/backends/fpu"
)

// TestCoverage: every loop visits each index of [0, n) exactly once, and worker indices stay
// below Workers, for pools and sizes around the points where a loop stops splitting.
func TestCoverage(t *testing.T) {
	for _, tc := range []struct{ workers, n, minPer int }{
		{1, 10, 1}, {2, 0, 1}, {2, 1, 1}, {2, 3, 2}, {2, 4, 2}, {2, 1000, 7}, {3, 100, 1}, {8, 5, 1}, {4, 4096, 32},
	} {
		p := Pool{Workers: tc.workers}
		check := func(name string, run func(visit func(w, i int))) {
			var mu sync.Mutex
			seen := make([]int, tc.n)
			run(func(w, i int) {
				mu.Lock()
				defer mu.Unlock()
				if w < 0 || w >= max(1, tc.workers) {
					t.Errorf("%s %+v: worker %d", name, tc, w)
				}
				seen[i]++
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("%s %+v: index %d visited %d times", name, tc, i, c)
				}
			}
		}
		check("Rows", func(visit func(w, i int)) {
			p.Rows(tc.n, tc.minPer, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					visit(0, i)
				}
			})
		})
		check("Blocks", func(visit func(w, i int)) {
			p.Blocks(tc.n, tc.minPer, func(w, lo, hi int) {
				for i := lo; i < hi; i++ {
					visit(w, i)
				}
			})
		})
		check("Each", func(visit func(w, i int)) { p.Each(tc.n, visit) })
	}
}

// TestWorkersTakeTheCallersMode: a caller that flushes subnormals to zero has every worker
// of Rows, Blocks and Each flush them too, and a caller that does not, none.
func TestWorkersTakeTheCallersMode(t *testing.T) {
	const workers, n = 4, 64
	run := func() (flushing []bool) {
		var mu sync.Mutex
		note := func() {
			mu.Lock()
			flushing = append(flushing, fpu.Current().Flushing())
			mu.Unlock()
		}
		p := Pool{Workers: workers}
		p.Rows(n, 1, func(lo, hi int) { note() })
		p.Blocks(n, 1, func(w, lo, hi int) { note() })
		p.Each(n, func(w, i int) { note() })
		return flushing
	}
	plain := run()
	m := fpu.FlushSubnormals()
	flushed := run()
	fpu.Restore(m)
	for i, f := range plain {
		if f {
			t.Fatalf("plain caller: body %d ran flushing subnormals", i)
		}
	}
	probe := fpu.FlushSubnormals()
	supported := fpu.Current().Flushing()
	fpu.Restore(probe)
	for i, f := range flushed {
		if f != supported {
			t.Fatalf("flushing caller: body %d ran with flushing %v, want %v", i, f, supported)
		}
	}
	// Blocks gives each of the workers a block, so every spawned goroutine ran a body.
	if len(flushed) < n+workers {
		t.Errorf("%d bodies ran, want at least %d", len(flushed), n+workers)
	}
}
