package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/backends/par"
)

// TestScanChanMatchPortable holds the AVX2 and AVX-512 channel kernels of the float32 scan
// to the portable loops they replace: the same outputs and input gradients, at the quick
// Mamba's state size and others, widths and lengths that are not powers of two, two tokens,
// and several workers.
func TestScanChanMatchPortable(t *testing.T) {
	const tol = 2e-5 // FMA rounding against separate products; the exp is the same polynomial
	for _, path := range []struct {
		name string
		p    scanPath
	}{{"avx2", scanAVX2}, {"avx512", scanAVX512}} {
		for _, c := range []struct {
			name                 string
			n, L, e, ns, workers int
		}{
			{"S16", 4, 9, 24, 16, 2},
			{"S16/two-token", 3, 2, 6, 16, 1},
			{"S8", 3, 7, 5, 8, 1},
			{"S32", 2, 5, 3, 32, 3},
			{"S16/long", 2, 93, 10, 16, 2},
		} {
			t.Run(path.name+"/"+c.name, func(t *testing.T) {
				if got := resolve[float32](path.p, c.ns); got != path.p {
					t.Skipf("state size %d or this CPU does not take the %s kernels", c.ns, path.name)
				}
				rng := rand.New(rand.NewPCG(5, uint64(c.ns*100+c.L)))
				mat := func(r, cc int, a float64) *tensor.Dense { return randDense(rng, r, cc, a) }
				in, _ := scanCase(mat, c.n, c.L, c.e, c.ns)
				pl := par.Pool{Workers: c.workers}
				want := runGraph(t, tensor.Float32, in, kernelGraph(&scanKernel[float32]{p: pl, t: c.L, use: scanPortable}, false, tensor.Float32))
				got := runGraph(t, tensor.Float32, in, kernelGraph(&scanKernel[float32]{p: pl, t: c.L, use: path.p}, false, tensor.Float32))
				if e := maxRelErr(got.out, want.out); e > tol {
					t.Errorf("forward differs from the portable loops by %.3g (tolerance %g)", e, tol)
				}
				for j := range want.grads {
					if maxAbs(want.grads[j]) == 0 {
						t.Errorf("gradient of input %d is all zeros: the check would be vacuous", j)
					}
					if e := maxRelErr(got.grads[j], want.grads[j]); e > tol {
						t.Errorf("gradient of input %d differs from the portable loops by %.3g (tolerance %g)", j, e, tol)
					}
				}
			})
		}
	}
}

// TestActivationsVecMatchPortable holds the AVX2 sigmoid and softplus (arrays of eight and
// more) to the portable loops (arrays of fewer than eight), bit for bit, on ±100, zeros and
// infinities.
func TestActivationsVecMatchPortable(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 and FMA: the vector loops do not run")
	}
	var x []float32
	for i := 0; i <= 4000; i++ {
		x = append(x, float32(-100+200*float64(i)/4000))
	}
	x = append(x, 0, -1e-8, 1e-8, float32(math.Inf(1)), float32(math.Inf(-1)), -0.5, 0.5)
	n := len(x)
	vsg, vsp, vsg2 := make([]float32, n), make([]float32, n), make([]float32, n)
	sigmoidArr(vsg, x)
	softplusSigmoidArr(vsp, vsg2, x)
	psg, psp, psg2 := make([]float32, n), make([]float32, n), make([]float32, n)
	for lo := 0; lo < n; lo += 7 { // fewer than eight: the portable loops
		hi := min(n, lo+7)
		sigmoidArr(psg[lo:hi], x[lo:hi])
		softplusSigmoidArr(psp[lo:hi], psg2[lo:hi], x[lo:hi])
	}
	for i, v := range x {
		// Bit for bit: an evaluation split into chunks puts other elements in the tails, and
		// chunked and whole evaluations must agree exactly (TestChunkedEvaluationIdentical).
		if math.Float32bits(vsg[i]) != math.Float32bits(psg[i]) || math.Float32bits(vsg2[i]) != math.Float32bits(psg2[i]) || math.Float32bits(vsp[i]) != math.Float32bits(psp[i]) {
			t.Fatalf("x=%v: vector σ %v %v softplus %v; portable σ %v %v softplus %v", v, vsg[i], vsg2[i], vsp[i], psg[i], psg2[i], psp[i])
		}
	}
}

// TestMulVecMatchGo holds the AVX2 mulArr, mulAddArr and siluBackArr to the Go loops, bit for
// bit (the vector loops round each product before its sum as Go does), at every length to 40
// (the masked tails) and in place.
func TestMulVecMatchGo(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2: the vector loops do not run")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 40; n++ {
		a, b, d := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i], d[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		got, gotAdd, want, wantAdd := make([]float32, n), append([]float32(nil), d...), make([]float32, n), append([]float32(nil), d...)
		mulArr(got, a, b)
		mulAddArr(gotAdd, a, b)
		for i := range want {
			want[i] = a[i] * b[i]
			wantAdd[i] += a[i] * b[i]
		}
		inPlace := append([]float32(nil), a...)
		mulArr(inPlace, inPlace, b)
		silu, sg := append([]float32(nil), a...), make([]float32, n)
		sigmoidArr(sg, b)
		siluBackArr(silu, silu, b, sg)
		for i, sv := range sg {
			if w := a[i] * sv * (1 + b[i]*(1-sv)); math.Float32bits(silu[i]) != math.Float32bits(w) {
				t.Fatalf("n=%d i=%d: siluBackArr %v, Go %v", n, i, silu[i], w)
			}
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(inPlace[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d i=%d: mulArr %v (in place %v), Go %v", n, i, got[i], inPlace[i], want[i])
			}
			if math.Float32bits(gotAdd[i]) != math.Float32bits(wantAdd[i]) {
				t.Fatalf("n=%d i=%d: mulAddArr %v, Go %v", n, i, gotAdd[i], wantAdd[i])
			}
		}
	}
}
