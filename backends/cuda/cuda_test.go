package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
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
