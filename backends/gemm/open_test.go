package gemm

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestOpen(t *testing.T) {
	if _, err := Open("nope"); err == nil {
		t.Error(`Open("nope") returned no error`)
	} else if !strings.HasPrefix(err.Error(), "gemm: ") {
		t.Errorf(`Open("nope") error lacks context: %v`, err)
	}
	g, err := Open("gonum")
	if err != nil || g.Name() != "gonum (pure Go)" {
		t.Errorf(`Open("gonum") = %v, %v`, g, err)
	}
	gb, err := Open("go")
	if k, ok := KernelOf(gb); err != nil || !ok || gb.Name() != "go ("+k+")" {
		t.Errorf(`Open("go") = %v, %v`, gb, err)
	}
	if k, ok := KernelOf(Full(Parallel(gb, 2))); !ok || k != bestKernel().name {
		t.Errorf("KernelOf(Full(Parallel(go))) = %q, %v", k, ok)
	}
	if _, ok := KernelOf(Gonum()); ok {
		t.Error("KernelOf(gonum) reports a kernel")
	}
	auto, err := Open("auto")
	if err != nil || auto == nil {
		t.Fatalf(`Open("auto") = %v, %v`, auto, err)
	}
	t.Logf("auto: %s", auto.Name())
	t.Run("openblas", func(t *testing.T) {
		ob, err := Open("openblas")
		if err != nil {
			if !errors.Is(err, ErrNotLoaded) || !strings.HasPrefix(err.Error(), "gemm: open openblas: ") {
				t.Errorf("error %v does not wrap ErrNotLoaded with context", err)
			}
			for _, p := range OpenBLASCandidates() {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error does not name the tried path %s: %v", p, err)
				}
			}
			if _, isGo := KernelOf(auto); !isGo {
				t.Errorf("auto = %s without OpenBLAS, want the go backend", auto.Name())
			}
			t.Skipf("OpenBLAS absent: %v", err)
		}
		if !strings.HasPrefix(ob.Name(), "openblas ") || !strings.Contains(ob.Name(), ", 1 thread") {
			t.Errorf("openblas name %q: want \"openblas <version> (<path>), 1 thread\"", ob.Name())
		}
		if k, _ := KernelOf(Go()); k == genericKernel.name && auto.Name() != ob.Name() {
			t.Errorf("auto = %s with the generic go kernel, want OpenBLAS %s", auto.Name(), ob.Name())
		}
		if k, _ := KernelOf(Go()); k != genericKernel.name && auto.Name() != Go().Name() {
			t.Errorf("auto = %s with the %s kernel, want %s", auto.Name(), k, Go().Name())
		}
		// Loading again is idempotent and gives the same library.
		ob2, err := Open("openblas")
		if err != nil || ob2.Name() != ob.Name() {
			t.Errorf("second Open(openblas) = %v, %v", ob2, err)
		}
		t.Logf("openblas: %s; parallel: %s", ob.Name(), Parallel(ob, 2).Name())
	})
}

func TestOpenBLASCandidates(t *testing.T) {
	t.Setenv(EnvOpenBLAS, "/custom/libopenblas.so")
	c := OpenBLASCandidates()
	if len(c) != 8 || c[0] != "/custom/libopenblas.so" || c[1] != "libopenblas.so.0" {
		t.Errorf("candidates with %s set = %q", EnvOpenBLAS, c)
	}
	if _, err := loadOpenBLAS("/nonexistent/libopenblas.so.0"); err == nil {
		t.Error("loading a nonexistent library succeeded")
	}
	paths := []string{"/nonexistent/a/libopenblas.so.0", "libnot-openblas-xyz.so"}
	_, err := openOpenBLASFrom(paths)
	if err == nil || !errors.Is(err, ErrNotLoaded) || !strings.HasPrefix(err.Error(), "gemm: open openblas: ") {
		t.Errorf("error with no loadable candidate = %v", err)
	}
	for _, p := range paths {
		if err != nil && !strings.Contains(err.Error(), p) {
			t.Errorf("error does not name %s: %v", p, err)
		}
	}
	t.Logf("error naming the paths tried: %v", err)
	// A real library without CBLAS symbols is rejected, not bound.
	if _, err := loadOpenBLAS("libm.so.6"); err == nil || !strings.Contains(err.Error(), "sgemm_") {
		t.Errorf("loading libm as OpenBLAS: err = %v", err)
	}
}

// TestOpenBLASConcurrent runs single-threaded OpenBLAS from several
// goroutines at once, as Parallel does, and checks every result.
func TestOpenBLASConcurrent(t *testing.T) {
	ob, err := Open("openblas")
	if err != nil {
		t.Skipf("OpenBLAS absent: %v", err)
	}
	tc := gemmCase{tA: blas.NoTrans, tB: blas.Trans, m: 150, n: 90, k: 70, alpha: 1, beta: 0.5}
	o := makeOperands[float32](tc, rand.New(rand.NewPCG(3, 4)))
	want := o.clone()
	gonum.Implementation{}.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, o.a, o.lda, o.b, o.ldb, 0.5, want.c, o.ldc)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := 0; it < 20; it++ {
				got := o.clone()
				ob.Sgemm(tc.tA, tc.tB, tc.m, tc.n, tc.k, 1, o.a, o.lda, o.b, o.ldb, 0.5, got.c, o.ldc)
				compare(t, tc, got.c, want.c, o.ldc, tol32)
			}
		}()
	}
	wg.Wait()
}
