package gemm

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestParallelUnwrapping(t *testing.T) {
	g := Gonum()
	if Parallel(g, 2) != g {
		t.Error("Parallel(gonum, 2) should return gonum unchanged")
	}
	fake := &recorder{}
	if Parallel(fake, 1) != Backend(fake) {
		t.Error("Parallel(b, 1) should return b unchanged")
	}
	p := Parallel(Full(Parallel(fake, 2)), 3).(*parallel)
	if p.b != Backend(fake) || p.workers != 3 {
		t.Errorf("nested Parallel = %+v", p)
	}
}

// recorder is a Backend that counts its calls and delegates to gonum.
type recorder struct {
	mu     sync.Mutex
	s, d   int
	blocks [][2]int // m, n of each Sgemm call
}

func (r *recorder) Name() string { return "recorder" }
func (r *recorder) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	r.mu.Lock()
	r.s++
	r.blocks = append(r.blocks, [2]int{m, n})
	r.mu.Unlock()
	gonum.Implementation{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
func (r *recorder) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	r.mu.Lock()
	r.d++
	r.mu.Unlock()
	gonum.Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func TestFullRoutesGemm(t *testing.T) {
	r := &recorder{}
	f := Full(r)
	var bf32 blas.Float32 = f
	var bf64 blas.Float64 = f
	a := []float32{1, 2, 3, 4}
	c := make([]float32, 4)
	bf32.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, a, 2, 0, c, 2)
	if want := []float32{7, 10, 15, 22}; fmt.Sprint(c) != fmt.Sprint(want) {
		t.Errorf("Full Sgemm = %v, want %v", c, want)
	}
	bf64.Dgemm(blas.NoTrans, blas.NoTrans, 1, 1, 1, 1, []float64{2}, 1, []float64{3}, 1, 0, []float64{0}, 1)
	if r.s != 1 || r.d != 1 {
		t.Errorf("backend saw %d Sgemm and %d Dgemm calls, want 1 and 1", r.s, r.d)
	}
	// Everything else is gonum's.
	if got := bf32.Sdot(2, a, 1, a[2:], 1); got != 1*3+2*4 {
		t.Errorf("Full Sdot = %v", got)
	}
	if f.Backend() != Backend(r) || f.Name() != "recorder" || Full(f).Backend() != Backend(r) {
		t.Error("Full does not expose or unwrap its backend")
	}
}

// repeatBlock returns n copies of block b.
func repeatBlock(b [2]int, n int) [][2]int {
	out := make([][2]int, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func TestParallelSplits(t *testing.T) {
	for _, tc := range []struct {
		m, n, k int
		want    [][2]int // blocks (in any order)
	}{
		{16, 16, 16, [][2]int{{16, 16}}}, // below the threshold: one direct call
		// Three blocks per worker, edges on multiples of 4 rows or 16 columns.
		{2368, 64, 64, [][2]int{{396, 64}, {396, 64}, {396, 64}, {396, 64}, {396, 64}, {388, 64}}}, // rows
		{64, 2368, 64, [][2]int{{64, 400}, {64, 400}, {64, 400}, {64, 400}, {64, 400}, {64, 368}}}, // columns
		{121, 121, 440, [][2]int{{24, 121}, {24, 121}, {24, 121}, {24, 121}, {25, 121}}},           // a 1-row remainder joins the last block
		{64, 404, 256, [][2]int{{64, 80}, {64, 80}, {64, 80}, {64, 80}, {64, 84}}},                 // columns
		// Large products: eight blocks a worker (the paper's 9472×192×192 forward product).
		{9472, 192, 192, repeatBlock([2]int{592, 192}, 16)},
		// k ≥ 4·max(m, n): blocks of k, each the whole of C (summed after).
		{101, 64, 1024, [][2]int{{101, 64}, {101, 64}, {101, 64}, {101, 64}, {101, 64}, {101, 64}}},
		{64, 101, 1024, [][2]int{{64, 101}, {64, 101}, {64, 101}, {64, 101}, {64, 101}, {64, 101}}},
		{128, 128, 128, [][2]int{{128, 128}}}, // 2.1M, below the threshold
	} {
		r := &recorder{}
		p := Parallel(r, 2)
		a := make([]float32, tc.m*tc.k)
		b := make([]float32, tc.k*tc.n)
		c := make([]float32, tc.m*tc.n)
		p.Sgemm(blas.NoTrans, blas.NoTrans, tc.m, tc.n, tc.k, 1, a, tc.k, b, tc.n, 0, c, tc.n)
		got := map[[2]int]int{}
		for _, bl := range r.blocks {
			got[bl]++
		}
		want := map[[2]int]int{}
		for _, bl := range tc.want {
			want[bl]++
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%dx%dx%d: blocks %v, want %v", tc.m, tc.n, tc.k, r.blocks, tc.want)
		}
	}
}

// TestParallelThresholdFollowsKernels checks that Parallel's split threshold
// is the larger one when OpenBLAS runs AVX-512 kernels.
func TestParallelThresholdFollowsKernels(t *testing.T) {
	ob, err := Open("openblas")
	if err != nil {
		t.Skipf("OpenBLAS absent: %v", err)
	}
	p := Parallel(ob, 2).(*parallel)
	want := parallelMinWork
	if strings.Contains(ob.Name(), "SkylakeX") || strings.Contains(ob.Name(), "Cooperlake") || strings.Contains(ob.Name(), "SapphireRapids") {
		want = parallelMinWorkAVX512
	}
	if p.minWork != want {
		t.Errorf("%s: split threshold %d, want %d", ob.Name(), p.minWork, want)
	}
	if g := (&recorder{}); Parallel(g, 2).(*parallel).minWork != parallelMinWork {
		t.Error("other backends should get the default threshold")
	}
}
