package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"windtunnel/backends/gemm"
)

var _ gemm.Backend = (*Backend)(nil)

// fakeDevice keeps "device memory" in host buffers and multiplies with a
// naive column-major triple loop, so that the Backend's code path, including
// the row-major to column-major mapping, is tested without a GPU.
type fakeDevice struct {
	mem       map[devPtr][]byte // allocations by base address
	next      devPtr
	allocs    int
	frees     int
	htods     map[devPtr]int // uploads by base address of the destination allocation
	dtohs     int
	gemms     int
	bound     int  // bind calls without unbind
	closed    bool // close was called
	failGemm  error
	failAlloc error
}

func newFakeDevice() *fakeDevice {
	return &fakeDevice{mem: map[devPtr][]byte{}, htods: map[devPtr]int{}, next: 0x10000}
}

func (f *fakeDevice) bind() error { f.bound++; return nil }
func (f *fakeDevice) unbind()     { f.bound-- }

func (f *fakeDevice) alloc(bytes uintptr) (devPtr, error) {
	if f.failAlloc != nil {
		return 0, f.failAlloc
	}
	p := f.next
	f.next += devPtr(bytes+0xffff) &^ 0xffff // leave a gap: overruns hit no allocation
	f.next += 0x10000
	f.mem[p] = make([]byte, bytes)
	f.allocs++
	return p, nil
}

func (f *fakeDevice) free(p devPtr) error {
	if _, ok := f.mem[p]; !ok {
		return fmt.Errorf("fake: free of unallocated %#x", p)
	}
	delete(f.mem, p)
	f.frees++
	return nil
}

// resolve returns the allocation holding [p, p+bytes) from p on, and its base.
func (f *fakeDevice) resolve(p devPtr, bytes uintptr) ([]byte, devPtr) {
	for base, m := range f.mem {
		if p >= base && uintptr(p-base)+bytes <= uintptr(len(m)) {
			return m[p-base:], base
		}
	}
	panic(fmt.Sprintf("fake: device access [%#x, +%d) outside every allocation", p, bytes))
}

func (f *fakeDevice) htod(dst devPtr, src unsafe.Pointer, bytes uintptr) error {
	m, base := f.resolve(dst, bytes)
	copy(m[:bytes], unsafe.Slice((*byte)(src), bytes))
	f.htods[base]++
	return nil
}

func (f *fakeDevice) dtoh(dst unsafe.Pointer, src devPtr, bytes uintptr) error {
	m, _ := f.resolve(src, bytes)
	copy(unsafe.Slice((*byte)(dst), bytes), m[:bytes])
	f.dtohs++
	return nil
}

func (f *fakeDevice) gemm(single bool, c call, alpha unsafe.Pointer, x, y devPtr, beta unsafe.Pointer, out devPtr) error {
	if f.failGemm != nil {
		return f.failGemm
	}
	f.gemms++
	if single {
		colGemm(f, c, *(*float32)(alpha), x, y, *(*float32)(beta), out)
	} else {
		colGemm(f, c, *(*float64)(alpha), x, y, *(*float64)(beta), out)
	}
	return nil
}

func (f *fakeDevice) close() error { f.closed = true; return nil }

// deviceSlice views count elements of device memory at p as []T.
func deviceSlice[T float32 | float64](f *fakeDevice, p devPtr, count int) []T {
	var zero T
	m, _ := f.resolve(p, uintptr(count)*unsafe.Sizeof(zero))
	return unsafe.Slice((*T)(unsafe.Pointer(&m[0])), count)
}

// colGemm is the reference column-major GEMM: out(m×n) = alpha·op(X)·op(Y) + beta·out,
// element (i, j) of a column-major matrix with leading dimension ld at i + j·ld.
func colGemm[T float32 | float64](f *fakeDevice, c call, alpha T, xp, yp devPtr, beta T, outp devPtr) {
	xRows, xCols := c.m, c.k // op(X) is m×k
	if c.transa != blas.NoTrans {
		xRows, xCols = c.k, c.m
	}
	yRows, yCols := c.k, c.n // op(Y) is k×n
	if c.transb != blas.NoTrans {
		yRows, yCols = c.n, c.k
	}
	if c.lda < max(1, xRows) || c.ldb < max(1, yRows) || c.ldc < max(1, c.m) {
		panic(fmt.Sprintf("fake: bad leading dimension in %+v", c))
	}
	x := deviceSlice[T](f, xp, (xCols-1)*c.lda+xRows)
	y := deviceSlice[T](f, yp, (yCols-1)*c.ldb+yRows)
	out := deviceSlice[T](f, outp, (c.n-1)*c.ldc+c.m)
	for j := 0; j < c.n; j++ {
		for i := 0; i < c.m; i++ {
			var s T
			for l := 0; l < c.k; l++ {
				var xv, yv T
				if c.transa == blas.NoTrans {
					xv = x[i+l*c.lda]
				} else {
					xv = x[l+i*c.lda]
				}
				if c.transb == blas.NoTrans {
					yv = y[l+j*c.ldb]
				} else {
					yv = y[j+l*c.ldb]
				}
				s += xv * yv
			}
			if beta == 0 {
				out[i+j*c.ldc] = alpha * s
			} else {
				out[i+j*c.ldc] = alpha*s + beta*out[i+j*c.ldc]
			}
		}
	}
}

// countingCPU is a CPU backend (gonum) that counts its calls.
type countingCPU struct {
	gonum.Implementation
	mu    sync.Mutex
	calls int
}

func (c *countingCPU) Name() string { return "counting gonum" }
func (c *countingCPU) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, cc []float32, ldc int) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	c.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}
func (c *countingCPU) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, cc []float64, ldc int) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	c.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, cc, ldc)
}

func (c *countingCPU) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

var fakeInfo = DeviceInfo{Name: "Fake GPU", Driver: "13.0", CUBLAS: "13.1.0", MemoryBytes: 1 << 30}

// newFakeBackend returns a Backend on a fake device that sends every product to the "GPU".
func newFakeBackend(threshold int) (*Backend, *fakeDevice, *countingCPU) {
	f := newFakeDevice()
	cpu := &countingCPU{}
	return newBackend(f, fakeInfo, Options{Threshold: threshold, CPU: cpu}), f, cpu
}

// gemmCase is one product: shapes, transposes, padding of the leading dimensions and scalars.
type gemmCase struct {
	tA, tB           blas.Transpose
	m, n, k          int
	padA, padB, padC int
	alpha, beta      float64
}

func (tc gemmCase) String() string {
	t := func(x blas.Transpose) string {
		if x == blas.NoTrans {
			return "N"
		}
		return "T"
	}
	return fmt.Sprintf("%s%s_m%dn%dk%d_pad%d.%d.%d_a%g_b%g", t(tc.tA), t(tc.tB), tc.m, tc.n, tc.k, tc.padA, tc.padB, tc.padC, tc.alpha, tc.beta)
}

// dims returns the stored (row-major) shapes and leading dimensions.
func (tc gemmCase) dims() (aRows, aCols, lda, bRows, bCols, ldb, ldc int) {
	aRows, aCols = tc.m, tc.k
	if tc.tA != blas.NoTrans {
		aRows, aCols = tc.k, tc.m
	}
	bRows, bCols = tc.k, tc.n
	if tc.tB != blas.NoTrans {
		bRows, bCols = tc.n, tc.k
	}
	return aRows, aCols, aCols + tc.padA, bRows, bCols, bCols + tc.padB, tc.n + tc.padC
}

func gemmCases() []gemmCase {
	var cases []gemmCase
	shapes := []struct{ m, n, k, padA, padB, padC int }{
		{5, 7, 3, 0, 0, 0},
		{13, 4, 9, 3, 1, 2},
		{1, 6, 2, 0, 2, 1},
		{8, 1, 1, 1, 0, 3},
		{6, 5, 17, 2, 3, 0},
	}
	scalars := []struct{ alpha, beta float64 }{{1, 0}, {0.5, 1}, {-2, 0.75}}
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, s := range shapes {
				for _, sc := range scalars {
					cases = append(cases, gemmCase{tA, tB, s.m, s.n, s.k, s.padA, s.padB, s.padC, sc.alpha, sc.beta})
				}
			}
		}
	}
	return cases
}

// operands are the inputs of one case; padding elements hold a sentinel.
type operands[T float32 | float64] struct {
	a, b, c       []T
	lda, ldb, ldc int
}

const sentinel = 12345

func makeOperands[T float32 | float64](tc gemmCase, rng *rand.Rand) operands[T] {
	aRows, aCols, lda, bRows, bCols, ldb, ldc := tc.dims()
	fill := func(rows, cols, ld int) []T {
		s := make([]T, rows*ld)
		for i := range s {
			if i%ld < cols {
				s[i] = T(rng.Float64()*2 - 1)
			} else {
				s[i] = sentinel
			}
		}
		return s
	}
	o := operands[T]{a: fill(aRows, aCols, lda), b: fill(bRows, bCols, ldb), c: fill(tc.m, tc.n, ldc), lda: lda, ldb: ldb, ldc: ldc}
	if tc.beta == 0 {
		for i := range o.c { // C must not be read when beta is zero
			if i%ldc < tc.n {
				o.c[i] = T(math.NaN())
			}
		}
	}
	return o
}

// compare checks got against want within tol relative to max(1, |want|),
// including the padding of C, which must be unchanged.
func compare[T float32 | float64](t *testing.T, got, want []T, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("length %d, want %d", len(got), len(want))
		return
	}
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(g) || math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) {
			t.Errorf("C[%d] = %v, want %v", i, g, w)
			return
		}
	}
}

func TestColMajorMapping(t *testing.T) {
	got := colMajor(blas.NoTrans, blas.Trans, 3, 5, 7, 9, 11, 13)
	want := call{transa: blas.Trans, transb: blas.NoTrans, m: 5, n: 3, k: 7, first: operandB, second: operandA, lda: 11, ldb: 9, ldc: 13}
	if got != want {
		t.Fatalf("colMajor = %+v, want %+v", got, want)
	}
	if cublasOp(blas.NoTrans) != 0 || cublasOp(blas.Trans) != 1 || cublasOp(blas.ConjTrans) != 1 {
		t.Fatal("cublasOp does not map N→0, T→1, C→1")
	}
}

func TestSgemmMatchesGonum(t *testing.T) {
	be, f, cpu := newFakeBackend(0)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range gemmCases() {
		o := makeOperands[float32](tc, rng)
		want := append([]float32(nil), o.c...)
		gonum.Implementation{}.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o.a, o.lda, o.b, o.ldb, float32(tc.beta), want, o.ldc)
		gemmsBefore := f.gemms
		be.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o.a, o.lda, o.b, o.ldb, float32(tc.beta), o.c, o.ldc)
		if f.gemms != gemmsBefore+1 {
			t.Fatalf("%v: not computed on the device", tc)
		}
		t.Run(tc.String(), func(t *testing.T) { compare(t, o.c, want, 1e-5) })
	}
	if cpu.count() != 0 {
		t.Errorf("%d products went to the CPU with threshold 0", cpu.count())
	}
	if f.bound != 0 {
		t.Errorf("bind/unbind unbalanced: %d", f.bound)
	}
	if s := be.Stats(); s.GPUCalls != int64(len(gemmCases())) || s.BytesFromDevice == 0 || s.BytesToDevice == 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestDgemmMatchesGonum(t *testing.T) {
	be, f, cpu := newFakeBackend(0)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range gemmCases() {
		o := makeOperands[float64](tc, rng)
		want := append([]float64(nil), o.c...)
		gonum.Implementation{}.Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, want, o.ldc)
		be.Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, o.c, o.ldc)
		t.Run(tc.String(), func(t *testing.T) { compare(t, o.c, want, 1e-5) })
	}
	if cpu.count() != 0 || f.gemms != len(gemmCases()) {
		t.Errorf("%d CPU and %d device products, want 0 and %d", cpu.count(), f.gemms, len(gemmCases()))
	}
}

func TestConjTransIsTrans(t *testing.T) {
	be, _, _ := newFakeBackend(0)
	rng := rand.New(rand.NewPCG(5, 6))
	tc := gemmCase{tA: blas.Trans, tB: blas.Trans, m: 4, n: 3, k: 5, alpha: 1}
	o := makeOperands[float32](tc, rng)
	want := append([]float32(nil), o.c...)
	gonum.Implementation{}.Sgemm(blas.Trans, blas.Trans, 4, 3, 5, 1, o.a, o.lda, o.b, o.ldb, 0, want, o.ldc)
	be.Sgemm(blas.ConjTrans, blas.ConjTrans, 4, 3, 5, 1, o.a, o.lda, o.b, o.ldb, 0, o.c, o.ldc)
	compare(t, o.c, want, 1e-5)
}

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

func TestLoadDriverErrors(t *testing.T) {
	paths := []string{"/nonexistent/libcuda.so.1", "/nonexistent/other/libcuda.so"}
	_, err := loadDriver(paths)
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("err = %v, want ErrNoDriver", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "cuda: load driver: tried ") {
		t.Errorf("message %q", msg)
	}
	for _, p := range paths {
		if strings.Count(msg, p) != 1 {
			t.Errorf("message does not name %s exactly once: %q", p, msg)
		}
	}
	// A library that loads but is not the driver.
	_, err = loadDriver([]string{"libc.so.6"})
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "cuInit") {
		t.Errorf("libc.so.6 as driver: %v", err)
	}
}

func TestLoadCUBLASErrors(t *testing.T) {
	paths := []string{"/nonexistent/libcublas.so.13", "libcublas-not-there.so.12"}
	_, err := loadCUBLAS(paths)
	if !errors.Is(err, ErrNoCUBLAS) {
		t.Fatalf("err = %v, want ErrNoCUBLAS", err)
	}
	for _, p := range paths {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("message does not name %s: %q", p, err)
		}
	}
	if _, err := loadCUBLAS([]string{"libc.so.6"}); !errors.Is(err, ErrNoCUBLAS) || !strings.Contains(err.Error(), "cublasSgemm_v2") {
		t.Errorf("libc.so.6 as cuBLAS: %v", err)
	}
}

func TestCandidates(t *testing.T) {
	t.Setenv(EnvLibCUDA, "/opt/test/libcuda.so.1")
	t.Setenv(EnvLibCUBLAS, "/opt/test/libcublas.so.13")
	d := DriverCandidates()
	if d[0] != "/opt/test/libcuda.so.1" || !contains(d, "libcuda.so.1") || !contains(d, "/usr/lib/wsl/lib/libcuda.so.1") {
		t.Errorf("DriverCandidates() = %v", d)
	}
	c := CUBLASCandidates()
	if c[0] != "/opt/test/libcublas.so.13" || !contains(c, "libcublas.so.13") || !contains(c, "/usr/local/cuda/lib64/libcublas.so.13") {
		t.Errorf("CUBLASCandidates() = %v", c)
	}
	t.Setenv(EnvLibCUDA, "")
	if d := DriverCandidates(); d[0] != "libcuda.so.1" {
		t.Errorf("without %s: %v", EnvLibCUDA, d)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// driverLoads reports whether some default driver candidate loads here.
func driverLoads() bool {
	_, err := loadDriver(DriverCandidates())
	return err == nil
}

func TestOpenWithoutGPU(t *testing.T) {
	bogus := "/nonexistent/windtunnel-test/libcuda.so.1"
	t.Setenv(EnvLibCUDA, bogus)
	be, err := Open(Options{})
	if err == nil {
		be.Close()
		t.Skip("a GPU is present: the no-GPU error path cannot be observed here")
	}
	if !errors.Is(err, ErrNoDriver) && !errors.Is(err, ErrNoDevice) && !errors.Is(err, ErrNoCUBLAS) {
		t.Fatalf("Open: %v, want ErrNoDriver, ErrNoDevice or ErrNoCUBLAS", err)
	}
	if driverLoads() {
		t.Skipf("a driver library loads here: Open failed with %v", err)
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("Open: %v, want ErrNoDriver", err)
	}
	for _, p := range []string{bogus, "libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"} {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("the error does not name %s: %v", p, err)
		}
	}
	info, err := Probe()
	if !errors.Is(err, ErrNoDriver) || info.Name != "" {
		t.Errorf("Probe() = %+v, %v", info, err)
	}
}
