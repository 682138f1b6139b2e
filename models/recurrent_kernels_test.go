package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"windtunnel/backends/gemm"
	"windtunnel/backends/par"
)

// The recurrent baselines' kernels (LSTM, causal convolution, selective scan) against naive
// references, finite differences, float32 and several workers; the LSTM and Mamba models'
// gradients, gates, probes and parameter counts are in recurrent_test.go.

// rkCase is one recurrent kernel with its inputs and a naive float64 reference forward.
type rkCase struct {
	name string
	k    kernel
	in   []*tensor.Dense
	ref  func(in [][]float64) []float64
}

// recSizes: n sequences of t tokens.
type recSizes struct{ n, t, workers int }

func recurrentCases[T Float](sz recSizes) []rkCase {
	rng := rand.New(rand.NewPCG(21, 22))
	pl, be := par.Pool{Workers: sz.workers}, gemm.Go() // float32 on the go backend, float64 on gonum
	n, L := sz.n, sz.t
	m := n * L
	mat := func(r, c int, a float64) *tensor.Dense { return randDense(rng, r, c, a) }
	var cs []rkCase

	const d, h = 4, 3
	cs = append(cs, rkCase{
		name: "LSTM", k: &lstmKernel[T]{be: be, p: pl, t: L},
		in: []*tensor.Dense{mat(m, d, 1), mat(d, 4*h, 0.8), mat(h, 4*h, 0.8), mat(1, 4*h, 0.5)},
		ref: func(in [][]float64) []float64 {
			x, wx, wh, b := in[0], in[1], in[2], in[3]
			y := make([]float64, m*h)
			for q := 0; q < n; q++ {
				hp, cp := make([]float64, h), make([]float64, h)
				for s := 0; s < L; s++ {
					r := q*L + s
					pre := append([]float64(nil), b...)
					for j := 0; j < 4*h; j++ {
						for i := 0; i < d; i++ {
							pre[j] += x[r*d+i] * wx[i*4*h+j]
						}
						for i := 0; i < h; i++ {
							pre[j] += hp[i] * wh[i*4*h+j]
						}
					}
					for j := 0; j < h; j++ {
						ig, fg, gg, og := sigmoid64(pre[j]), sigmoid64(pre[h+j]), math.Tanh(pre[2*h+j]), sigmoid64(pre[3*h+j])
						cp[j] = fg*cp[j] + ig*gg
						hp[j] = og * math.Tanh(cp[j])
						y[r*h+j] = hp[j]
					}
				}
			}
			return y
		},
	})

	const e, kw, ns = 5, 3, 3
	cs = append(cs, rkCase{
		name: "CausalConv", k: &convKernel[T]{p: pl, t: L},
		in: []*tensor.Dense{mat(m, e, 1), mat(kw, e, 1), mat(1, e, 0.5)},
		ref: func(in [][]float64) []float64 {
			u, w, b := in[0], in[1], in[2]
			y := make([]float64, m*e)
			for q := 0; q < n; q++ {
				for s := 0; s < L; s++ {
					for c := 0; c < e; c++ {
						v := b[c]
						for j := 0; j < kw; j++ {
							if t := s - kw + 1 + j; t >= 0 {
								v += w[j*e+c] * u[(q*L+t)*e+c]
							}
						}
						y[(q*L+s)*e+c] = v * sigmoid64(v)
					}
				}
			}
			return y
		},
	})

	// At state size 3 on the portable loops, at 8 and 16 on the AVX2 channel kernels in
	// float32 where the CPU has them.
	for _, sc := range []struct {
		name string
		ns   int
	}{{"SelectiveScan", ns}, {"SelectiveScan/S8", 8}, {"SelectiveScan/S16", 16}} {
		in, ref := scanCase(mat, n, L, e, sc.ns)
		cs = append(cs, rkCase{name: sc.name, k: &scanKernel[T]{p: pl, t: L}, in: in, ref: ref})
	}
	return cs
}

// scanCase is the selective scan's inputs (n sequences of L tokens, e channels, state ns)
// and its naive float64 reference.
func scanCase(mat func(r, c int, a float64) *tensor.Dense, n, L, e, ns int) ([]*tensor.Dense, func(in [][]float64) []float64) {
	m := n * L
	scanIn := []*tensor.Dense{mat(m, e, 1), mat(m, e, 1.5), mat(e, ns, 1), mat(m, ns, 1), mat(m, ns, 1), mat(1, e, 1), mat(m, e, 2)}
	scanRef := func(in [][]float64) []float64 {
		u, dr, alog, bm, cm, dv, z := in[0], in[1], in[2], in[3], in[4], in[5], in[6]
		y := make([]float64, m*e)
		for q := 0; q < n; q++ {
			for c := 0; c < e; c++ {
				hs := make([]float64, ns)
				for s := 0; s < L; s++ {
					r := q*L + s
					dl := math.Log(1 + math.Exp(dr[r*e+c]))
					acc := dv[c] * u[r*e+c]
					for j := range hs {
						hs[j] = math.Exp(-dl*math.Exp(alog[c*ns+j]))*hs[j] + dl*bm[r*ns+j]*u[r*e+c]
						acc += cm[r*ns+j] * hs[j]
					}
					zv := z[r*e+c]
					y[r*e+c] = acc * zv * sigmoid64(zv)
				}
			}
		}
		return y
	}
	return scanIn, scanRef
}

func inputs64(in []*tensor.Dense) [][]float64 {
	out := make([][]float64, len(in))
	for i, d := range in {
		out[i] = d.Float64s()
	}
	return out
}

var recSmall = recSizes{n: 3, t: 5, workers: 2}

func TestRecurrentKernelsMatchReference(t *testing.T) {
	for _, c := range recurrentCases[float64](recSmall) {
		t.Run(c.name, func(t *testing.T) {
			got := runGraph(t, tensor.Float64, c.in, kernelGraph(c.k, false, tensor.Float64))
			want := c.ref(inputs64(c.in))
			if e := maxRelErr(got.out, want); e > 1e-12 {
				t.Errorf("forward differs from the naive reference by %.3g\n kernel %.6g\n naive  %.6g", e, got.out, want)
			}
			if maxAbs(want) < 1e-3 {
				t.Errorf("reference output is all near zero: the check would be vacuous")
			}
		})
	}
}

func TestRecurrentKernelsFiniteDifferences(t *testing.T) {
	const h, tol = 1e-6, 1e-6
	for _, c := range recurrentCases[float64](recSmall) {
		t.Run(c.name, func(t *testing.T) {
			an := runGraph(t, tensor.Float64, c.in, kernelGraph(c.k, false, tensor.Float64))
			in := cloneDenses(c.in)
			worst := 0.0
			for i, d := range in {
				if maxAbs(an.grads[i]) == 0 {
					t.Errorf("gradient of input %d is all zeros", i)
				}
				v := d.Float64s()
				for j, old := range v {
					v[j] = old + h
					lp := kernelLoss(c.k, false, in)
					v[j] = old - h
					lm := kernelLoss(c.k, false, in)
					v[j] = old
					num, a := (lp-lm)/(2*h), an.grads[i][j]
					e := math.Abs(num-a) / math.Max(1, math.Abs(a))
					worst = math.Max(worst, e)
					if e > tol {
						t.Errorf("input %d[%d]: analytic %.10g, numeric %.10g (rel %.3g)", i, j, a, num, e)
					}
				}
			}
			t.Logf("worst relative error %.3g", worst)
		})
	}
}

func TestRecurrentKernelsFloat32(t *testing.T) {
	const fwdTol, gradTol = 1e-5, 1e-4
	c64, c32 := recurrentCases[float64](recSmall), recurrentCases[float32](recSmall)
	for i := range c64 {
		t.Run(c64[i].name, func(t *testing.T) {
			want := runGraph(t, tensor.Float64, c64[i].in, kernelGraph(c64[i].k, false, tensor.Float64))
			got := runGraph(t, tensor.Float32, c32[i].in, kernelGraph(c32[i].k, false, tensor.Float32))
			checkFloat32(t, got, want, fwdTol, gradTol)
		})
	}
}

// TestRecurrentKernelsParallel compares three workers with one on enough sequences that
// every loop splits.
func TestRecurrentKernelsParallel(t *testing.T) {
	big := recSizes{n: 40, t: 6, workers: 1}
	serial := recurrentCases[float64](big)
	big.workers = 3
	par := recurrentCases[float64](big)
	for i := range serial {
		t.Run(serial[i].name, func(t *testing.T) {
			want := runGraph(t, tensor.Float64, serial[i].in, kernelGraph(serial[i].k, false, tensor.Float64))
			got := runGraph(t, tensor.Float64, par[i].in, kernelGraph(par[i].k, false, tensor.Float64))
			if e := maxRelErr(got.out, want.out); e > 1e-12 {
				t.Errorf("forward with 3 workers differs from 1 worker by %.3g", e)
			}
			for j := range want.grads {
				if e := maxRelErr(got.grads[j], want.grads[j]); e > 1e-12 {
					t.Errorf("gradient of input %d with 3 workers differs from 1 worker by %.3g", j, e)
				}
			}
		})
	}
}

// TestFastMath checks the float32 pointwise functions of the scan against float64.
func TestFastMath(t *testing.T) {
	// scanStep32's exp on the scan's range (arguments ≤ 0): the rounding of x·log2(e) costs
	// relative accuracy only for large |x|, where exp(x) is negligible.
	var a []float32
	for i := 0; i <= 20000; i++ {
		a = append(a, float32(-85*float64(i)/20000))
	}
	dst, ones, zeros := make([]float32, len(a)), make([]float32, len(a)), make([]float32, len(a))
	for i := range ones {
		ones[i] = 1
	}
	a2 := make([]float32, len(a))
	for i, v := range a {
		a2[i] = v * math.Log2E
	}
	scanStep32(dst, ones, make([]float32, len(a)), a2, zeros, 1, 0, nil) // dst = 2^(a·log2 e)·1 + 0
	worst, far := 0.0, 0.0
	for i, v := range a {
		want := math.Exp(float64(v))
		e := math.Abs(float64(dst[i])-want) / want
		if v >= -8 {
			worst = math.Max(worst, e)
		} else {
			far = math.Max(far, e)
		}
	}
	if worst > 6e-7 || far > 4e-6 {
		t.Errorf("scanStep32 exp relative error %.3g on [−8, 0], %.3g below", worst, far)
	}
	// softplus and sigmoid on ±100, absolute error (relative for softplus above 1).
	var x []float32
	for i := 0; i <= 40000; i++ {
		x = append(x, float32(-100+200*float64(i)/40000))
	}
	x = append(x, 0, -1e-8, 1e-8, float32(math.Inf(1)), float32(math.Inf(-1)))
	sp, sg, sg2 := make([]float32, len(x)), make([]float32, len(x)), make([]float32, len(x))
	softplusSigmoidArr(sp, sg, x)
	sigmoidArr(sg2, x)
	var esp, esg float64
	for i, v := range x {
		f := float64(v)
		wsp := math.Max(f, 0) + math.Log1p(math.Exp(-math.Abs(f)))
		wsg := sigmoid64(f)
		if math.IsInf(f, 0) {
			// −∞ is clamped like −86: e^−86 ≈ 4e-38 stands for 0.
			if math.Abs(float64(sp[i])-wsp) > 1e-37 || math.Abs(float64(sg[i])-wsg) > 1e-37 || math.Abs(float64(sg2[i])-wsg) > 1e-37 {
				t.Errorf("x=%v: softplus %v sigmoid %v %v", f, sp[i], sg[i], sg2[i])
			}
			continue
		}
		esp = math.Max(esp, math.Abs(float64(sp[i])-wsp)/math.Max(1, wsp))
		esg = math.Max(esg, math.Max(math.Abs(float64(sg[i])-wsg), math.Abs(float64(sg2[i])-wsg)))
	}
	if esp > 3e-7 || esg > 3e-7 {
		t.Errorf("softplus error %.3g, sigmoid error %.3g", esp, esg)
	}
	// tanh (the LSTM's gates and cell), eight lanes and the tail (40,006 values): within
	// tanhf's documented 4e-7 of math.Tanh, with TestTanhVec's margin (±∞ clamped like ±7.9).
	th := make([]float32, len(x))
	tanhArr(th, x)
	var eth float64
	for i, v := range x {
		eth = math.Max(eth, math.Abs(float64(th[i])-math.Tanh(float64(v))))
	}
	if eth > 6e-7 {
		t.Errorf("tanh error %.3g", eth)
	}
	t.Logf("exp relative error %.3g on [−8, 0], %.3g below; softplus %.3g, sigmoid %.3g, tanh %.3g", worst, far, esp, esg, eth)
}
