package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Compile-time assertions: Full's result is a complete gonum BLAS.
var (
	_ blas.Float32 = Full(Gonum())
	_ blas.Float64 = Full(Gonum())
)

// Tolerances relative to the largest magnitude in the reference result.
const (
	tol32 = 1e-4
	tol64 = 1e-12
)

// sentinel marks elements of C outside the m×n view, which must stay as they are.
const sentinel = 12345

type gemmCase struct {
	name        string
	tA, tB      blas.Transpose
	m, n, k     int
	padA, padB  int // leading dimension minus row width
	padC        int
	alpha, beta float64
	nanC        bool // fill C with NaN (only with beta == 0: C must not be read)
}

func gemmCases() []gemmCase {
	var cases []gemmCase
	trans := []struct {
		name   string
		tA, tB blas.Transpose
	}{
		{"NN", blas.NoTrans, blas.NoTrans},
		{"NT", blas.NoTrans, blas.Trans},
		{"TN", blas.Trans, blas.NoTrans},
		{"TT", blas.Trans, blas.Trans},
	}
	shapes := []struct {
		m, n, k          int
		padA, padB, padC int
		alpha, beta      float64
		nanC             bool
	}{
		{1, 1, 1, 0, 0, 0, 1, 0, false},
		{7, 5, 3, 0, 0, 0, 1, 0, false},
		{5, 7, 11, 2, 3, 1, 0.5, 2, false},
		{37, 19, 23, 3, 0, 5, -1.5, 0.25, false},
		{19, 37, 64, 0, 4, 0, 2, -1, false},
		{130, 70, 50, 1, 2, 3, 0.75, 1, false}, // m·n·k above the split threshold, split by rows
		{40, 200, 60, 0, 0, 8, 1, 0.5, false},  // split by columns
		{1, 300, 900, 0, 0, 0, 1, 0, false},    // a single row, split by columns
		{300, 1, 900, 0, 0, 0, -1, 1, false},   // a single column, split by rows
		{33, 65, 17, 1, 1, 1, 1, 0, true},      // beta = 0 must overwrite NaNs in C
		{96, 96, 96, 5, 5, 5, 1.25, 0, true},   // same, split
		{6, 4, 0, 0, 0, 2, 1, 0.5, false},      // k = 0: C = beta·C
		{6, 4, 0, 0, 0, 0, 1, 0, true},         // k = 0, beta = 0: C = 0
		{6, 4, 5, 0, 0, 0, 0, -2, false},       // alpha = 0: C = beta·C
		{0, 4, 5, 0, 0, 0, 1, 0.5, false},      // m = 0
		{4, 0, 5, 0, 0, 0, 1, 0.5, false},      // n = 0
		{0, 0, 0, 0, 0, 0, 1, 0.5, false},      // everything empty
	}
	for _, tr := range trans {
		for _, s := range shapes {
			cases = append(cases, gemmCase{
				name: fmt.Sprintf("%s/%dx%dx%d/ld+%d,%d,%d/a%g,b%g", tr.name, s.m, s.n, s.k, s.padA, s.padB, s.padC, s.alpha, s.beta),
				tA:   tr.tA, tB: tr.tB, m: s.m, n: s.n, k: s.k,
				padA: s.padA, padB: s.padB, padC: s.padC,
				alpha: s.alpha, beta: s.beta, nanC: s.nanC,
			})
		}
	}
	return cases
}

// operands builds the stored A, B and C of a case: each the exact minimal
// length gonum requires, carved out of a longer buffer whose tail and
// padding hold NaN (A, B) or sentinel (C), so that reading outside the view
// poisons the result and writing outside it is detected.
type operands[T float] struct {
	a, b, c       []T
	lda, ldb, ldc int
}

func makeOperands[T float](tc gemmCase, rng *rand.Rand) operands[T] {
	rowA, colA := tc.m, tc.k
	if tc.tA != blas.NoTrans {
		rowA, colA = tc.k, tc.m
	}
	rowB, colB := tc.k, tc.n
	if tc.tB != blas.NoTrans {
		rowB, colB = tc.n, tc.k
	}
	var o operands[T]
	o.lda, o.ldb, o.ldc = max(1, colA+tc.padA), max(1, colB+tc.padB), max(1, tc.n+tc.padC)
	nan := T(math.NaN())
	fill := func(rows, cols, ld int, pad T, val func() T) []T {
		n := max(0, (rows-1)*ld+cols) // gonum's minimal length, even for empty dimensions
		buf := make([]T, n+16)
		for i := range buf {
			buf[i] = pad
		}
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				buf[i*ld+j] = val()
			}
		}
		return buf[:n:n]
	}
	rnd := func() T { return T(rng.Float64()*2 - 1) }
	o.a = fill(rowA, colA, o.lda, nan, rnd)
	o.b = fill(rowB, colB, o.ldb, nan, rnd)
	cval := rnd
	if tc.nanC {
		cval = func() T { return nan }
	}
	o.c = fill(tc.m, tc.n, o.ldc, sentinel, cval)
	return o
}

func (o operands[T]) clone() operands[T] {
	// Keep the NaN/sentinel tail beyond len(c) too.
	c := append([]T(nil), o.c[:cap(o.c)]...)
	o.c = c[:len(o.c):len(o.c)]
	return o
}

// compare checks got against want inside the m×n view (relative to the
// largest |want|) and exact equality (sentinel) outside it, including the
// tail beyond len(c).
func compare[T float](t *testing.T, tc gemmCase, got, want []T, ldc int, tol float64) {
	t.Helper()
	scale := 1e-30
	for i := 0; i < tc.m; i++ {
		for j := 0; j < tc.n; j++ {
			scale = max(scale, math.Abs(float64(want[i*ldc+j])))
		}
	}
	bad := 0
	full := got[:cap(got)]
	for idx := range full {
		i, j := idx/ldc, idx%ldc
		inView := i < tc.m && j < tc.n && idx < len(got)
		g := float64(full[idx])
		if !inView {
			if g != sentinel {
				t.Errorf("element %d (row %d col %d) outside the view changed: %v", idx, i, j, g)
				bad++
			}
		} else {
			w := float64(want[idx])
			if math.IsNaN(g) || math.Abs(g-w) > tol*scale {
				t.Errorf("C[%d,%d] = %v, want %v (|diff| %.3g > %.3g)", i, j, g, w, math.Abs(g-w), tol*scale)
				bad++
			}
		}
		if bad > 10 {
			t.Fatal("too many errors")
		}
	}
}

type namedBackend struct {
	name string
	b    Backend
	err  error // set when the backend is unavailable: the subtest is skipped
}

func testBackends(t *testing.T) []namedBackend {
	ob, err := Open("openblas")
	if err != nil {
		t.Logf("OpenBLAS unavailable, its subtests are skipped: %v", err)
	} else {
		t.Logf("OpenBLAS: %s", ob.Name())
	}
	list := []namedBackend{
		{"gonum", Gonum(), nil},
		{"parallel-gonum-2", Parallel(Gonum(), 2), nil},
		// Force splitting of every product, with uneven blocks, to exercise
		// the block arithmetic even where OpenBLAS is absent.
		{"split-gonum-3-always", &parallel{b: Gonum(), workers: 3}, nil},
		{"openblas", ob, err},
	}
	list = append(list, goBackends()...)
	if err == nil {
		list = append(list,
			namedBackend{"parallel-openblas-2", Parallel(ob, 2), nil},
			namedBackend{"split-openblas-3-always", &parallel{b: ob, workers: 3}, nil},
			namedBackend{"full-parallel-openblas-2", Full(Parallel(ob, 2)), nil},
		)
	} else {
		list = append(list,
			namedBackend{"parallel-openblas-2", nil, err},
			namedBackend{"split-openblas-3-always", nil, err},
			namedBackend{"full-parallel-openblas-2", nil, err})
	}
	return list
}

// caseFixture is a case's operands and gonum's result on them, in float32 and float64.
type caseFixture struct {
	o32, want32 operands[float32]
	o64, want64 operands[float64]
}

// gemmFixtures makes every case's operands (from a generator seeded by the case) and
// gonum's result once, for all the back-ends compared with it.
func gemmFixtures(cases []gemmCase) []caseFixture {
	ref := gonum.Implementation{}
	out := make([]caseFixture, len(cases))
	for i, tc := range cases {
		rng := rand.New(rand.NewPCG(uint64(tc.m*1000003+tc.n*1009+tc.k), uint64(tc.tA+tc.tB)))
		f := &out[i]
		f.o32 = makeOperands[float32](tc, rng)
		f.want32 = f.o32.clone()
		ref.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), f.o32.a, f.o32.lda, f.o32.b, f.o32.ldb, float32(tc.beta), f.want32.c, f.o32.ldc)
		f.o64 = makeOperands[float64](tc, rng)
		f.want64 = f.o64.clone()
		ref.Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, f.o64.a, f.o64.lda, f.o64.b, f.o64.ldb, tc.beta, f.want64.c, f.o64.ldc)
	}
	return out
}

func TestGemmAgainstGonum(t *testing.T) {
	cases := gemmCases()
	fixtures := gemmFixtures(cases)
	for _, nb := range testBackends(t) {
		t.Run(nb.name, func(t *testing.T) {
			if nb.err != nil {
				t.Skipf("library absent: %v", nb.err)
			}
			for i, tc := range cases {
				f := fixtures[i]
				t.Run(tc.name, func(t *testing.T) {
					t.Run("f32", func(t *testing.T) {
						o, got := f.o32, f.o32.clone()
						nb.b.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o.a, o.lda, o.b, o.ldb, float32(tc.beta), got.c, o.ldc)
						compare(t, tc, got.c, f.want32.c, o.ldc, tol32)
					})
					t.Run("f64", func(t *testing.T) {
						o, got := f.o64, f.o64.clone()
						nb.b.Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, got.c, o.ldc)
						compare(t, tc, got.c, f.want64.c, o.ldc, tol64)
					})
				})
			}
		})
	}
}

// TestGemmNaiveReference checks the reference itself against a plain triple
// loop in float64 on one transposed, padded case.
func TestGemmNaiveReference(t *testing.T) {
	tc := gemmCase{tA: blas.Trans, tB: blas.NoTrans, m: 9, n: 6, k: 4, padA: 2, padB: 1, padC: 3, alpha: 1.5, beta: -0.5}
	o := makeOperands[float64](tc, rand.New(rand.NewPCG(1, 2)))
	got := o.clone()
	Gonum().Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, o.a, o.lda, o.b, o.ldb, tc.beta, got.c, o.ldc)
	want := o.clone()
	for i := 0; i < tc.m; i++ {
		for j := 0; j < tc.n; j++ {
			var s float64
			for l := 0; l < tc.k; l++ {
				s += o.a[l*o.lda+i] * o.b[l*o.ldb+j]
			}
			want.c[i*o.ldc+j] = tc.alpha*s + tc.beta*o.c[i*o.ldc+j]
		}
	}
	compare(t, tc, got.c, want.c, o.ldc, tol64)
}

func TestGemmPanicsOnBadArguments(t *testing.T) {
	backends := []Backend{Gonum(), &parallel{b: Gonum(), workers: 2}}
	if ob, err := Open("openblas"); err == nil {
		backends = append(backends, ob, Parallel(ob, 2))
	}
	a, b := make([]float32, 64*64), make([]float32, 64*64)
	for _, be := range backends {
		for _, tc := range []struct {
			name, want string
			call       func()
		}{
			{"short c", "blas: insufficient length of c", func() {
				be.Sgemm(blas.NoTrans, blas.NoTrans, 64, 64, 64, 1, a, 64, b, 64, 0, make([]float32, 64*64-1), 64)
			}},
			{"short a", "blas: insufficient length of a", func() {
				be.Sgemm(blas.Trans, blas.NoTrans, 64, 64, 64, 1, a[:100], 64, b, 64, 0, make([]float32, 64*64), 64)
			}},
			{"bad ldb", "blas: bad leading dimension of B", func() {
				be.Sgemm(blas.NoTrans, blas.NoTrans, 64, 64, 64, 1, a, 64, b, 63, 0, make([]float32, 64*64), 64)
			}},
			{"bad transpose", "blas: illegal transpose", func() {
				be.Dgemm('x', blas.NoTrans, 2, 2, 2, 1, make([]float64, 4), 2, make([]float64, 4), 2, 0, make([]float64, 4), 2)
			}},
		} {
			t.Run(be.Name()+"/"+tc.name, func(t *testing.T) {
				defer func() {
					r := recover()
					if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
						t.Errorf("panic = %v, want %q", r, tc.want)
					}
				}()
				tc.call()
			})
		}
	}
}

// TestGemmRandomShapes compares OpenBLAS and the splitting wrapper with
// gonum on many random shapes, transposes, leading dimensions and scalars: 60 of them,
// the first 30 with -short (150 took 13 s of CPU on 2 cores; the shapes by size and the
// kernels' edges have their own tests above).
func TestGemmRandomShapes(t *testing.T) {
	shapes := 60
	if testing.Short() {
		shapes = 30
	}
	ob, err := Open("openblas")
	if err != nil {
		t.Logf("OpenBLAS absent (%v): checking only the splitting wrapper over gonum", err)
	}
	backends := append([]namedBackend{{"split-gonum-2-always", &parallel{b: Gonum(), workers: 2}, nil}}, goBackends()...)
	if err == nil {
		backends = append(backends,
			namedBackend{"openblas", ob, nil},
			namedBackend{"split-openblas-2-always", &parallel{b: ob, workers: 2}, nil},
			namedBackend{"parallel-openblas-2", Parallel(ob, 2), nil})
	}
	rng := rand.New(rand.NewPCG(7, 8))
	ts := []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}
	ref := gonum.Implementation{}
	for i := 0; i < shapes; i++ {
		tc := gemmCase{
			tA: ts[rng.IntN(3)], tB: ts[rng.IntN(3)],
			m: 1 + rng.IntN(300), n: 1 + rng.IntN(300), k: rng.IntN(300),
			padA: rng.IntN(3), padB: rng.IntN(3), padC: rng.IntN(3),
			alpha: []float64{1, -1, 0.5, 2.5}[rng.IntN(4)], beta: []float64{0, 1, -0.5}[rng.IntN(3)],
		}
		o32 := makeOperands[float32](tc, rng)
		o64 := makeOperands[float64](tc, rng)
		want32, want64 := o32.clone(), o64.clone()
		ref.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o32.a, o32.lda, o32.b, o32.ldb, float32(tc.beta), want32.c, o32.ldc)
		ref.Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, o64.a, o64.lda, o64.b, o64.ldb, tc.beta, want64.c, o64.ldc)
		for _, nb := range backends {
			t.Run(fmt.Sprintf("%d/%s/%c%c/%dx%dx%d", i, nb.name, tc.tA, tc.tB, tc.m, tc.n, tc.k), func(t *testing.T) {
				got32, got64 := o32.clone(), o64.clone()
				nb.b.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, float32(tc.alpha), o32.a, o32.lda, o32.b, o32.ldb, float32(tc.beta), got32.c, o32.ldc)
				nb.b.Dgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, tc.alpha, o64.a, o64.lda, o64.b, o64.ldb, tc.beta, got64.c, o64.ldc)
				compare(t, tc, got32.c, want32.c, o32.ldc, tol32)
				compare(t, tc, got64.c, want64.c, o64.ldc, tol64)
			})
		}
	}
}
