package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// envRequireGPU names the environment variable that, set to 1, makes the GPU tests fail instead of skipping where no GPU can be opened.
const envRequireGPU = "WINDTUNNEL_REQUIRE_GPU"

// openGPUForTest opens the real device with every product on the GPU, or
// skips (fails with WINDTUNNEL_REQUIRE_GPU=1) where there is none.
func openGPUForTest(tb testing.TB) *Backend {
	tb.Helper()
	be, err := Open(Options{Threshold: 0})
	if err != nil {
		missing := errors.Is(err, ErrNoDriver) || errors.Is(err, ErrNoDevice) || errors.Is(err, ErrNoCUBLAS)
		if missing && os.Getenv(envRequireGPU) != "1" {
			tb.Skipf("no usable NVIDIA GPU here (set %s=1 to make this a failure): %v", envRequireGPU, err)
		}
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := be.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	tb.Logf("%s; %s; libraries %s, %s", be.Name(), be.Info(), be.Info().DriverLib, be.Info().CUBLASLib)
	return be
}

// TestGPUSgemmMatchesGonum compares cuBLAS with gonum on a real GPU. The
// tolerance (1e-4 relative) also catches TF32 math, whose 10-bit mantissa
// errs by about 1e-3 relative on these sums.
func TestGPUSgemmMatchesGonum(t *testing.T) {
	be := openGPUForTest(t)
	rng := rand.New(rand.NewPCG(21, 22))
	cases := []gemmCase{
		{tA: blas.NoTrans, tB: blas.NoTrans, m: 64, n: 48, k: 32, alpha: 1},
		{tA: blas.NoTrans, tB: blas.Trans, m: 33, n: 65, k: 17, padA: 3, padB: 1, padC: 2, alpha: 0.5, beta: 1},
		{tA: blas.Trans, tB: blas.NoTrans, m: 100, n: 7, k: 300, padC: 5, alpha: -1, beta: 0.25},
		{tA: blas.Trans, tB: blas.Trans, m: 1, n: 129, k: 64, padA: 2, alpha: 2},
		{tA: blas.NoTrans, tB: blas.NoTrans, m: 512, n: 384, k: 1024, alpha: 1, beta: 1},
	}
	for _, tc := range cases {
		t.Run(tc.String(), func(t *testing.T) {
			o := makeOperands[float32](tc, rng)
			want := append([]float32(nil), o.c...)
			gonum.Implementation{}.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o.a, o.lda, o.b, o.ldb, float32(tc.beta), want, o.ldc)
			be.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o.a, o.lda, o.b, o.ldb, float32(tc.beta), o.c, o.ldc)
			compare(t, o.c, want, 1e-4)
		})
	}
	o := makeOperands[float64](cases[1], rng)
	want := append([]float64(nil), o.c...)
	tc := cases[1]
	gonum.Implementation{}.Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, want, o.ldc)
	be.Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, o.c, o.ldc)
	compare(t, o.c, want, 1e-10)

	if err := be.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
	s := be.Stats()
	if s.GPUCalls != int64(len(cases)+1) || s.CPUCalls != 0 || s.GPUTime <= 0 {
		t.Errorf("stats %+v", s)
	}
	t.Logf("stats %+v", s)
}

// TestGPUResidentAndConcurrent checks resident weights and products from
// several goroutines (each call binds the context on its own thread).
func TestGPUResidentAndConcurrent(t *testing.T) {
	be := openGPUForTest(t)
	const m, n, k = 96, 80, 64
	rng := rand.New(rand.NewPCG(23, 24))
	w := make([]float32, k*n)
	for i := range w {
		w[i] = float32(rng.Float64()*2 - 1)
	}
	be.Resident(w)
	check := func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 25))
		x := make([]float32, m*k)
		for i := range x {
			x[i] = float32(r.Float64()*2 - 1)
		}
		c := make([]float32, m*n)
		want := make([]float32, m*n)
		be.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, x, k, w, n, 0, c, n)
		gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, x, k, w, n, 0, want, n)
		compare(t, c, want, 1e-4)
	}
	check(t, 1)
	check(t, 2)
	if s := be.Stats(); s.ResidentUploads != 1 || s.ResidentHits != 1 {
		t.Errorf("%d resident uploads and %d hits in two products, want 1 and 1", s.ResidentUploads, s.ResidentHits)
	}
	for i := range w {
		w[i] *= -0.5
	}
	be.Invalidate()
	check(t, 3)
	if s := be.Stats(); s.ResidentUploads != 2 {
		t.Errorf("%d resident uploads after Invalidate, want 2", s.ResidentUploads)
	}

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				check(t, uint64(100+10*g+i))
			}
		}()
	}
	wg.Wait()
	if err := be.Err(); err != nil {
		t.Fatalf("Err: %v", err)
	}
}

func TestGPUProbe(t *testing.T) {
	openGPUForTest(t) // skips without a GPU
	info, err := Probe()
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
	if info.Name == "" || info.MemoryBytes <= 0 || info.Driver == "" || info.CUBLAS == "" {
		t.Errorf("Probe() = %+v", info)
	}
}

// BenchmarkGPUSgemm times square products on the GPU (copies of A, B and C
// included) to choose Options.Threshold; compare with gemm's BenchmarkSgemm.
func BenchmarkGPUSgemm(b *testing.B) {
	be := openGPUForTest(b)
	for _, size := range []int{64, 128, 256, 512, 1024, 2048} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			x := make([]float32, size*size)
			for i := range x {
				x[i] = float32(i%17) / 17
			}
			c := make([]float32, size*size)
			b.SetBytes(int64(3 * 4 * size * size))
			for b.Loop() {
				be.Sgemm(blas.NoTrans, blas.NoTrans, size, size, size, 1, x, size, x, size, 0, c, size)
			}
			b.ReportMetric(2*math.Pow(float64(size), 3)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
