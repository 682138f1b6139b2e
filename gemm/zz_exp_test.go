package gemm

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
)

func TestExpThreshold(t *testing.T) {
	ob, err := Open("openblas")
	if err != nil {
		t.Skip()
	}
	fmt.Println(ob.Name())
	sp := &parallel{b: ob, workers: 2}
	shapes := [][3]int{{128, 128, 128}, {160, 160, 160}, {192, 192, 192}, {256, 256, 256}, {320, 320, 320},
		{1184, 64, 64}, {2368, 64, 64}, {4736, 64, 64}, {2368, 128, 64}, {2368, 256, 64}, {2368, 64, 256}, {64, 64, 2368}, {64, 256, 2368}, {9472, 192, 192}}
	median := func(be Backend, s [3]int, gap time.Duration) time.Duration {
		m, n, k := s[0], s[1], s[2]
		a := make([]float32, m*k)
		b := make([]float32, k*n)
		c := make([]float32, m*n)
		for i := range a {
			a[i] = 0.5
		}
		for i := range b {
			b[i] = 0.25
		}
		N := 200
		ts := make([]time.Duration, N)
		for i := 0; i < N; i++ {
			t0 := time.Now()
			for time.Since(t0) < gap {
			}
			t1 := time.Now()
			be.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, b, n, 0, c, n)
			ts[i] = time.Since(t1)
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
		return ts[N/2]
	}
	for _, s := range shapes {
		line := fmt.Sprintf("%5dx%4dx%4d mnk=%5.1fM", s[0], s[1], s[2], float64(s[0]*s[1]*s[2])/1e6)
		for _, gap := range []time.Duration{0, 300 * time.Microsecond} {
			t1, t2 := median(ob, s, gap), median(sp, s, gap)
			line += fmt.Sprintf(" | gap %3dµs: single %7.1fµs split %7.1fµs x%.2f", gap.Microseconds(), float64(t1.Nanoseconds())/1e3, float64(t2.Nanoseconds())/1e3, float64(t1)/float64(t2))
		}
		fmt.Println(line)
	}
}
