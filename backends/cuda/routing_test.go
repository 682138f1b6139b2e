package cuda

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestBuffersArePooled(t *testing.T) {
	be, f, _ := newFakeBackend(0)
	rng := rand.New(rand.NewPCG(7, 8))
	big := gemmCase{tA: blas.NoTrans, tB: blas.NoTrans, m: 40, n: 30, k: 20, alpha: 1, beta: 1}
	small := gemmCase{tA: blas.Trans, tB: blas.NoTrans, m: 10, n: 3, k: 7, padC: 2, alpha: 1}
	ob, os := makeOperands[float32](big, rng), makeOperands[float32](small, rng)
	run := func() {
		be.Sgemm(big.tA, big.tB, big.m, big.n, big.k, 1, ob.a, ob.lda, ob.b, ob.ldb, 1, ob.c, ob.ldc)
		be.Sgemm(small.tA, small.tB, small.m, small.n, small.k, 1, os.a, os.lda, os.b, os.ldb, 0, os.c, os.ldc)
		be.Dgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, []float64{1, 2, 3, 4}, 2, []float64{1, 0, 0, 1}, 2, 0, make([]float64, 4), 2)
	}
	run()
	allocs := f.allocs
	if allocs != 3 {
		t.Errorf("%d allocations for the first products, want 3 (A, B, C)", allocs)
	}
	for range 5 {
		run()
	}
	if f.allocs != allocs {
		t.Errorf("%d allocations after warm-up, want none", f.allocs-allocs)
	}
	if err := be.Close(); err != nil {
		t.Fatal(err)
	}
	if len(f.mem) != 0 || !f.closed {
		t.Errorf("after Close: %d allocations left, device closed %v", len(f.mem), f.closed)
	}
}

func TestResidentUploadedOnce(t *testing.T) {
	be, f, _ := newFakeBackend(0)
	const m, n, k = 6, 5, 4
	rng := rand.New(rand.NewPCG(9, 10))
	w := make([]float32, k*n) // the weight, B (k×n)
	for i := range w {
		w[i] = float32(rng.Float64())
	}
	x := make([]float32, m*k)
	for i := range x {
		x[i] = float32(rng.Float64())
	}
	be.Resident(w)
	be.Resident(w) // again: no-op
	product := func() []float32 {
		c := make([]float32, m*n)
		be.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, x, k, w, n, 0, c, n)
		want := make([]float32, m*n)
		gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, x, k, w, n, 0, want, n)
		compare(t, c, want, 1e-5)
		return c
	}
	residentUploads := func() int {
		for _, r := range be.resident {
			return f.htods[r.dev]
		}
		return -1
	}
	product()
	product()
	if got := residentUploads(); got != 1 {
		t.Errorf("resident weight uploaded %d times in two products, want 1", got)
	}
	if got := f.htods[be.bufs[slotA].ptr]; got != 2 {
		t.Errorf("activation uploaded %d times in two products, want 2", got)
	}
	if be.bufs[slotB].ptr != 0 {
		t.Error("the pooled B buffer was used for a resident operand")
	}
	// The optimiser changes the weight; without Invalidate the stale copy
	// would be used.
	for i := range w {
		w[i] += 1
	}
	be.Invalidate()
	product()
	if got := residentUploads(); got != 2 {
		t.Errorf("resident weight uploaded %d times after Invalidate, want 2", got)
	}
	// A transposed use of a part of the weight (rows 1..3 of w as Aᵀ) is served from the resident copy.
	sub := w[n:]
	c := make([]float32, n*2)
	be.Sgemm(blas.Trans, blas.NoTrans, n, 2, k-1, 1, sub, n, x, k, 0, c, 2)
	want := make([]float32, n*2)
	gonum.Implementation{}.Sgemm(blas.Trans, blas.NoTrans, n, 2, k-1, 1, sub, n, x, k, 0, want, 2)
	compare(t, c, want, 1e-5)
	if got := residentUploads(); got != 2 {
		t.Errorf("resident weight uploaded %d times for a sub-slice use, want still 2", got)
	}
	if s := be.Stats(); s.ResidentUploads != 2 || s.ResidentHits != 2 {
		t.Errorf("stats: %d resident uploads, %d hits, want 2 and 2", s.ResidentUploads, s.ResidentHits)
	}
	if err := be.ClearResident(); err != nil {
		t.Fatal(err)
	}
	if len(be.resident) != 0 || len(f.mem) != 3 {
		t.Errorf("after ClearResident: %d registrations, %d allocations (want 0 and 3)", len(be.resident), len(f.mem))
	}
}

func TestThresholdRouting(t *testing.T) {
	be, f, cpu := newFakeBackend(1000)
	a := make([]float32, 16*16)
	for i := range a {
		a[i] = float32(i % 7)
	}
	c := make([]float32, 16*16)
	be.Sgemm(blas.NoTrans, blas.NoTrans, 4, 4, 4, 1, a, 4, a, 4, 0, c, 4) // 64 < 1000
	if cpu.count() != 1 || f.gemms != 0 {
		t.Fatalf("4×4×4: %d CPU and %d device products, want 1 and 0", cpu.count(), f.gemms)
	}
	be.Sgemm(blas.NoTrans, blas.NoTrans, 16, 16, 16, 1, a, 16, a, 16, 0, c, 16) // 4096 ≥ 1000
	if cpu.count() != 1 || f.gemms != 1 {
		t.Fatalf("16×16×16: %d CPU and %d device products, want 1 and 1", cpu.count(), f.gemms)
	}
	// alpha == 0 and k == 0 only scale C: the CPU does that.
	be.Sgemm(blas.NoTrans, blas.NoTrans, 16, 16, 16, 0, a, 16, a, 16, 2, c, 16)
	be.Sgemm(blas.NoTrans, blas.NoTrans, 16, 16, 0, 1, a, 1, a, 16, 2, c, 16)
	if cpu.count() != 3 || f.gemms != 1 {
		t.Fatalf("alpha 0 / k 0: %d CPU and %d device products, want 3 and 1", cpu.count(), f.gemms)
	}
	// Empty products do nothing anywhere.
	be.Sgemm(blas.NoTrans, blas.NoTrans, 0, 16, 16, 1, nil, 16, a, 16, 0, nil, 16)
	if cpu.count() != 3 || f.gemms != 1 {
		t.Fatal("an empty product was dispatched")
	}
	if s := be.Stats(); s.CPUCalls != 3 || s.GPUCalls != 1 {
		t.Errorf("stats %+v", s)
	}
	be.Reset()
	if s := be.Stats(); s != (Stats{}) || be.GPUTime() != 0 {
		t.Errorf("after Reset: %+v", s)
	}
}

func TestConcurrentProducts(t *testing.T) {
	be, f, cpu := newFakeBackend(100)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 11))
			for i := range 20 {
				tc := gemmCase{tA: blas.NoTrans, tB: blas.Trans, m: 3 + i%5, n: 4 + g, k: 2 + i%7, alpha: 1, beta: 0.5}
				o := makeOperands[float32](tc, rng)
				want := append([]float32(nil), o.c...)
				gonum.Implementation{}.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, o.a, o.lda, o.b, o.ldb, 0.5, want, o.ldc)
				be.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, o.a, o.lda, o.b, o.ldb, 0.5, o.c, o.ldc)
				compare(t, o.c, want, 1e-5)
			}
		}()
	}
	wg.Wait()
	if f.gemms == 0 || cpu.count() == 0 || f.gemms+cpu.count() != 160 {
		t.Errorf("%d device and %d CPU products, want both > 0 and 160 in all", f.gemms, cpu.count())
	}
}

func TestGPUErrorFallsBackToCPU(t *testing.T) {
	be, f, cpu := newFakeBackend(0)
	f.failGemm = &Error{Op: "cublasSgemm_v2", Code: 13, Msg: "CUBLAS_STATUS_EXECUTION_FAILED"}
	rng := rand.New(rand.NewPCG(12, 13))
	tc := gemmCase{tA: blas.NoTrans, tB: blas.NoTrans, m: 5, n: 4, k: 3, padC: 1, alpha: 1, beta: 2}
	for range 2 {
		o := makeOperands[float32](tc, rng)
		want := append([]float32(nil), o.c...)
		gonum.Implementation{}.Sgemm(tc.tA, tc.tB, 5, 4, 3, 1, o.a, o.lda, o.b, o.ldb, 2, want, o.ldc)
		be.Sgemm(tc.tA, tc.tB, 5, 4, 3, 1, o.a, o.lda, o.b, o.ldb, 2, o.c, o.ldc)
		compare(t, o.c, want, 1e-5)
	}
	if cpu.count() != 2 {
		t.Errorf("%d CPU products, want 2", cpu.count())
	}
	err := be.Err()
	var cerr *Error
	if !errors.As(err, &cerr) || cerr.Code != 13 || !strings.Contains(err.Error(), "GPU disabled") {
		t.Errorf("Err() = %v", err)
	}
	if f.bound != 0 {
		t.Errorf("bind/unbind unbalanced: %d", f.bound)
	}

	// An allocation failure does the same.
	be, f, cpu = newFakeBackend(0)
	f.failAlloc = errors.New("out of memory")
	c := make([]float64, 4)
	be.Dgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, []float64{1, 2, 3, 4}, 2, []float64{1, 0, 0, 1}, 2, 0, c, 2)
	if cpu.count() != 1 || c[3] != 4 || be.Err() == nil {
		t.Errorf("after a failed allocation: %d CPU products, C %v, Err %v", cpu.count(), c, be.Err())
	}
}

func TestProductsAfterCloseRunOnCPU(t *testing.T) {
	be, f, cpu := newFakeBackend(0)
	c := make([]float32, 4)
	be.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, []float32{1, 2, 3, 4}, 2, []float32{1, 0, 0, 1}, 2, 0, c, 2)
	if err := be.Close(); err != nil {
		t.Fatal(err)
	}
	if err := be.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	be.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, []float32{1, 2, 3, 4}, 2, []float32{1, 0, 0, 1}, 2, 0, c, 2)
	if f.gemms != 1 || cpu.count() != 1 || c[2] != 3 {
		t.Errorf("%d device and %d CPU products, C %v", f.gemms, cpu.count(), c)
	}
	if be.Err() != nil {
		t.Errorf("Err after Close = %v, want nil", be.Err())
	}
}

func TestPanicsLikeGonum(t *testing.T) {
	be, _, _ := newFakeBackend(0)
	a := make([]float32, 12)
	cases := []struct {
		want string
		f    func()
	}{
		{"blas: illegal transpose", func() { be.Sgemm('x', blas.NoTrans, 2, 2, 2, 1, a, 2, a, 2, 0, a, 2) }},
		{"blas: m < 0", func() { be.Sgemm(blas.NoTrans, blas.NoTrans, -1, 2, 2, 1, a, 2, a, 2, 0, a, 2) }},
		{"blas: bad leading dimension of A", func() { be.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, a, 2, a, 2, 0, a, 2) }},
		{"blas: bad leading dimension of C", func() { be.Sgemm(blas.NoTrans, blas.NoTrans, 2, 3, 2, 1, a, 2, a, 3, 0, a, 2) }},
		{"blas: insufficient length of b", func() { be.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, a[:3], 2, 0, a, 2) }},
		{"blas: insufficient length of c", func() { be.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, a, 2, 0, a[:3], 2) }},
	}
	for _, tc := range cases {
		func() {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			tc.f()
		}()
	}
	// The same messages as gonum's.
	func() {
		defer func() {
			if r := recover(); r != "blas: bad leading dimension of A" {
				t.Errorf("gonum panics %v", r)
			}
		}()
		gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, a, 2, a, 2, 0, a, 2)
	}()
}

func TestVersionStrings(t *testing.T) {
	for v, want := range map[int]string{13000: "13.0", 12040: "12.4", 12080: "12.8"} {
		if got := driverVersionString(v); got != want {
			t.Errorf("driverVersionString(%d) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[int]string{130100: "13.1.0", 120405: "12.4.5", 110902: "11.9.2", 10202: "10.2.2"} {
		if got := cublasVersionString(v); got != want {
			t.Errorf("cublasVersionString(%d) = %q, want %q", v, got, want)
		}
	}
	s := fakeInfo.String()
	if !strings.Contains(s, "Fake GPU") || !strings.Contains(s, "1.0 GiB") || !strings.Contains(s, "cuBLAS 13.1.0") {
		t.Errorf("DeviceInfo.String() = %q", s)
	}
	be, _, _ := newFakeBackend(0)
	if got, want := be.Name(), "cuda: Fake GPU (driver 13.0, cuBLAS 13.1.0)"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
}
