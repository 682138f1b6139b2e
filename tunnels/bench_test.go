package tunnels

import "testing"

// benchFill measures Fill into a reused Sequence.
func benchFill(b *testing.B, tun Tunnel) {
	var s Sequence
	tun.Fill(&s, TrainStream(1), 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tun.Fill(&s, TrainStream(1), uint64(i))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "seqs/s")
}

func BenchmarkBijection(b *testing.B) { benchFill(b, must(New("bijection", Config{}))) }

func BenchmarkHMM(b *testing.B) { benchFill(b, must(New("hmm", Config{}))) }

func BenchmarkRecall(b *testing.B) { benchFill(b, must(New("recall", Config{}))) }
