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
