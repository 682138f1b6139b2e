package gemm

import "testing"

// BenchmarkKernel times each micro-kernel alone on one 6×16 tile with k = 256 (the
// slivers in L1): the ceiling of the backend's single-core speed.
func BenchmarkKernel(b *testing.B) {
	const k = kcBlock
	a := make([]float32, mr*k)
	bb := make([]float32, nr*k)
	c := make([]float32, mr*nr)
	for _, kn := range kernels() {
		b.Run(kn.name, func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				kn.full(k, a, bb, c, nr, 1, 0)
			}
			flop := 2 * float64(mr*nr*k) * float64(b.N)
			b.ReportMetric(flop/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(flop/cpu/1e9, "GFLOP/cpu-s")
			}
		})
	}
}

// BenchmarkPackWeight times packing the paper's largest weight (192×768) as the B operand of
// its products, as the forward (x·W, W untransposed) and the input gradient (g·Wᵀ) pack it:
// the work a per-step cache of packed weights would save in each of those products.
func BenchmarkPackWeight(b *testing.B) {
	const k, n = 192, 768
	w := make([]float32, k*n)
	dst := make([]float32, (n+nr-1)/nr*nr*kcBlock)
	for _, tc := range []struct {
		name      string
		trans     bool
		k, n, ldb int
	}{{"forward-W", false, k, n, n}, {"input-grad-Wt", true, n, k, n}} {
		b.Run(tc.name, func(b *testing.B) {
			cpu0 := cpuTime()
			defer func() { b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op") }()
			for i := 0; i < b.N; i++ {
				for p0 := 0; p0 < tc.k; p0 += kcBlock {
					kb := min(kcBlock, tc.k-p0)
					if !tc.trans {
						packBRows(dst, w, tc.ldb, tc.n, p0, kb, 0, kb)
						continue
					}
					for s := 0; s*nr < tc.n; s++ {
						packBSliverT(dst[s*nr*kb:], w, tc.ldb, s*nr, min(nr, tc.n-s*nr), p0, kb)
					}
				}
			}
		})
	}
}
